/**
 * Readiness's Redis check: one connection of its own that answers PING or says it cannot. No
 * offline queue, so a PING while Redis is away fails at once instead of waiting for a reconnect.
 */
import { openRedis, type RedisClient } from '../config/redis-connection';
import type { RedisTarget } from '../config/redis-settings';
import type { Logger } from './logger';

const PING_TIMEOUT_MS = 1000;

export class RedisProbe {
  private readonly client: RedisClient;
  private lastError?: string;

  constructor(target: RedisTarget, logger: Logger) {
    this.client = openRedis(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectionName: 'oxmq:runner:health',
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // ioredis prints unhandled error events; one debug line per distinct error is enough here
    // (the workers log their own connection errors).
    this.client.on('error', (error: Error) => {
      if (error.message === this.lastError) return;
      this.lastError = error.message;
      logger.debug({ err: error }, 'health probe: redis error');
    });
    this.client.on('ready', () => (this.lastError = undefined));
  }

  async ping(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS);
    });
    try {
      return await Promise.race([
        this.client.ping().then(
          (reply) => reply === 'PONG',
          () => false,
        ),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.client.disconnect();
  }
}
