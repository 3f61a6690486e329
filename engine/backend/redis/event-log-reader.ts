/**
 * Reads a queue's events stream with `XREAD BLOCK` (docs/redis-keys.md), on a connection that is
 * the reader's alone: a blocking read would stall every other user of a shared one.
 */
import type { RedisClient } from './connection';
import { DEFAULTS } from '../../defaults';
import type { QueueKeys } from '../../queue/keys';
import type { EventLogEntry, EventLogReader } from '../event-log';

/**
 * Extra time granted to an XREAD over its BLOCK before the connection is presumed half-open
 * (a reply that will never come) and is reset.
 */
const WATCHDOG_GRACE_MS = DEFAULTS.worker.blockWatchdogGraceMs;
const TIMED_OUT = Symbol('timed out');

export class RedisEventLogReader implements EventLogReader {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: QueueKeys,
  ) {}

  async lastId(): Promise<string> {
    const [last] = await this.client.xrevrange(this.keys.events, '+', '-', 'COUNT', 1);
    // An empty or missing stream: any entry written from now on has an id above 0-0.
    return last ? last[0] : '0-0';
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async read(afterId: string, blockMs: number): Promise<EventLogEntry[]> {
    const pending = this.client.xread('BLOCK', blockMs, 'STREAMS', this.keys.events, afterId);
    // Closing the connection may leave this command unanswered.
    pending.catch(() => undefined);
    // With maxRetriesPerRequest null ioredis never fails a command, so on a half-open socket the
    // reply could be awaited forever. Past the deadline, drop the connection and read again.
    // (ioredis may resend the abandoned XREAD after reconnecting; its reply is ignored, and the
    // next read starts from the same id, so nothing is lost.)
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
      if (blockMs > 0) timer = setTimeout(() => resolve(TIMED_OUT), blockMs + WATCHDOG_GRACE_MS);
    });
    try {
      const reply = await Promise.race([pending, deadline]);
      if (reply !== TIMED_OUT) return reply?.[0]?.[1] ?? [];
      // Only a connection that believes it is healthy is stuck; otherwise ioredis is already
      // reconnecting and the command waits in its offline queue.
      if (this.client.status === 'ready') this.client.disconnect(true);
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}
