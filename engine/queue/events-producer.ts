/**
 * QueueEventsProducer: publishes custom events on a queue's events stream, where QueueEvents
 * (OxMQ's or bullmq's) emit them under their `eventName` like the built-in ones.
 */
import { defaultStorage } from '../backend/default-storage';
import type { QueueBackend } from '../backend/queue-backend';
import { checkStorageOption, type Storage, type StorageConnection } from '../backend/storage';
import type { ConnectionOptions } from '../backend/redis/connection';
import { DEFAULTS } from '../defaults';
import { ClosedError, ValidationError } from '../errors';
import { QueueKeys } from './keys';

export interface QueueEventsProducerOptions {
  /** ioredis options, a redis:// URL or an ioredis instance; required by the Redis storage. */
  connection?: ConnectionOptions;
  prefix?: string;
  /** OxMQ: where the queue's event log lives (engine/backend/storage.ts); default Redis. */
  storage?: Storage;
}

/** bullmq trims the stream to about this many entries on each custom event, unless told. */
const DEFAULT_MAX_EVENTS = 1000;

export class QueueEventsProducer {
  readonly keys: QueueKeys;
  readonly qualifiedName: string;
  closing: Promise<void> | undefined;
  private readonly connection: StorageConnection;
  private readonly backend: QueueBackend;

  constructor(
    readonly name: string,
    readonly opts: QueueEventsProducerOptions,
  ) {
    if (!opts) throw new ValidationError('QueueEventsProducer needs a connection option');
    checkStorageOption(opts.storage);
    this.keys = new QueueKeys(opts.prefix ?? DEFAULTS.prefix, name);
    this.qualifiedName = this.keys.queueKey;
    const storage = opts.storage ?? defaultStorage;
    const queue = { prefix: this.keys.prefix, name };
    this.connection = storage.connect({ role: 'producer', connection: opts.connection, queue });
    this.backend = storage.queue({ connection: this.connection, queue }).backend;
  }

  /** The Redis key of `type` in this queue. */
  toKey(type: string): string {
    return this.keys.base + type;
  }

  async waitUntilReady(): Promise<void> {
    await this.connection.ready();
  }

  /**
   * Adds `{ event: eventName, ...fields }` to the stream, trimmed to about `maxEvents` entries.
   * Stream fields are text: strings go as they are, numbers and booleans as their text, other
   * values as JSON (bullmq would write "[object Object]"); undefined fields are left out.
   */
  async publishEvent<T extends { eventName: string }>(
    argsObj: T,
    maxEvents = DEFAULT_MAX_EVENTS,
  ): Promise<void> {
    if (this.closing) throw new ClosedError(`QueueEventsProducer ${this.name} is closed`);
    const { eventName, ...fields } = argsObj ?? ({} as T);
    if (typeof eventName !== 'string' || eventName.length === 0) {
      throw new ValidationError('publishEvent needs a non-empty string eventName');
    }
    if (!Number.isInteger(maxEvents) || maxEvents < 0) {
      throw new ValidationError('maxEvents must be a non-negative integer');
    }
    const flat: string[] = ['event', eventName];
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      flat.push(field, typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    await this.backend.publishEvent(flat, maxEvents);
  }

  async close(): Promise<void> {
    this.closing ??= this.connection.close();
    await this.closing;
  }

  /** Drops the connection at once. */
  async disconnect(): Promise<void> {
    this.closing ??= this.connection.disconnect();
    await this.closing;
  }
}
