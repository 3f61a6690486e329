/**
 * The console's live-events hub: ONE reader per Next server process, however
 * many browsers listen. It runs XREAD BLOCK over the events streams of the queues that at least
 * one subscriber watches, on its own blocking connection, and hands each subscriber the batches
 * of its queues. When the last subscriber leaves, the reader stops and its connection is closed,
 * so idle consoles hold no blocking connection.
 */
import 'server-only';
import type { RedisClient } from 'oxmq';
import type { LiveEventBatch, QueueRef } from 'oxmq/admin';
import { admin, openLiveEventsConnection } from './oxmq';

/** Streams one process watches at most; a subscriber asking beyond it gets the first ones. */
const MAX_WATCHED_STREAMS = 1_000;
/** Pause after a failed read (Redis away) before trying again. */
const RETRY_DELAY_MS = 1_000;
/** How often a reader with no stream to watch looks again. */
const IDLE_POLL_MS = 500;

interface LiveSubscriber {
  queues: readonly QueueRef[];
  send(batches: LiveEventBatch[]): void;
}

const keyOf = (queue: QueueRef) => `${queue.prefix}\u0000${queue.name}`;

class LiveEventsHub {
  private readonly subscribers = new Map<LiveSubscriber, Set<string>>();
  private readonly cursors = new Map<string, { queue: QueueRef; after: string }>();
  /** The connection of the running reader; a loop whose connection is not this one stops. */
  private connection: RedisClient | undefined;

  /** Starts delivering events of the subscriber's queues that happen from now on. */
  async subscribe(subscriber: LiveSubscriber): Promise<() => void> {
    const room = Math.max(0, MAX_WATCHED_STREAMS - this.cursors.size);
    const missing = subscriber.queues.filter((queue) => !this.cursors.has(keyOf(queue)));
    const added = missing.slice(0, room);
    // The cursor is the stream's newest id now: nothing that happens after `ready` is missed.
    const ids = await admin().events.latestIds(added);
    added.forEach((queue, index) => {
      if (!this.cursors.has(keyOf(queue))) {
        this.cursors.set(keyOf(queue), { queue, after: ids[index] ?? '0-0' });
      }
    });
    const keys = new Set(subscriber.queues.map(keyOf).filter((key) => this.cursors.has(key)));
    this.subscribers.set(subscriber, keys);
    this.start();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.unsubscribe(subscriber);
    };
  }

  /** Readers currently running in this process (0 or 1). */
  get running(): number {
    return this.connection ? 1 : 0;
  }

  private unsubscribe(subscriber: LiveSubscriber): void {
    this.subscribers.delete(subscriber);
    const watched = new Set<string>();
    for (const keys of this.subscribers.values()) for (const key of keys) watched.add(key);
    for (const key of [...this.cursors.keys()]) if (!watched.has(key)) this.cursors.delete(key);
    if (this.subscribers.size === 0) this.stop();
  }

  private start(): void {
    if (this.connection) return;
    const connection = openLiveEventsConnection();
    this.connection = connection;
    void this.loop(connection);
  }

  private stop(): void {
    const connection = this.connection;
    this.connection = undefined;
    // disconnect(), not quit(): quit would wait behind the pending XREAD BLOCK.
    connection?.disconnect();
  }

  private async loop(connection: RedisClient): Promise<void> {
    while (this.connection === connection) {
      // Subscribers with no stream to watch (no queue yet, or none that exists): a read of
      // nothing returns at once, and looping on it would starve the process's event loop.
      if (this.cursors.size === 0) {
        await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
        continue;
      }
      let batches: LiveEventBatch[];
      try {
        batches = await admin().events.read(connection, [...this.cursors.values()]);
      } catch (error) {
        if (this.connection !== connection) return;
        console.error('OxMQ console: live events read failed:', (error as Error).message);
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        continue;
      }
      if (this.connection !== connection) return;
      for (const batch of batches) {
        const cursor = this.cursors.get(keyOf(batch));
        const last = batch.events[batch.events.length - 1];
        if (cursor && last) cursor.after = last.id;
      }
      this.fanOut(batches);
    }
  }

  private fanOut(batches: LiveEventBatch[]): void {
    if (batches.length === 0) return;
    for (const [subscriber, keys] of this.subscribers) {
      const mine = batches.filter((batch) => keys.has(keyOf(batch)));
      if (mine.length === 0) continue;
      try {
        subscriber.send(mine);
      } catch (error) {
        // One broken client must not stop the others' deliveries.
        console.error('OxMQ console: live events delivery failed:', (error as Error).message);
      }
    }
  }
}

// On globalThis so `next dev` reloads keep one hub (and one reader) per process.
const holder = globalThis as typeof globalThis & { __oxmqLiveEvents?: LiveEventsHub };

export function liveEventsHub(): LiveEventsHub {
  holder.__oxmqLiveEvents ??= new LiveEventsHub();
  return holder.__oxmqLiveEvents;
}
