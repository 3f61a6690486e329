/**
 * QueueEvents: a consumer of a queue's global events stream (`<prefix>:<name>:events`, docs/redis-keys.md).
 *
 * It reads through the storage's event log reader (for Redis, `XREAD BLOCK` on a connection of
 * its own: engine/backend/redis/event-log-reader.ts) and re-emits every entry as a local
 * event, converted the way bullmq 6's QueueEvents converts it, so listeners (and
 * `job.waitUntilFinished`) receive the same payloads whichever library wrote the stream.
 */
import { EventEmitter } from 'node:events';
import type { EventLogEntry, EventLogReader } from '../backend/event-log';
import { defaultStorage } from '../backend/default-storage';
import { checkStorageOption, type Storage, type StorageConnection } from '../backend/storage';
import { hashTaggedName } from './hash-tags';
import type { ConnectionOptions } from '../backend/redis/connection';
import { DEFAULTS } from '../defaults';
import { ClosedError, ValidationError } from '../errors';
import { QueueKeys } from './keys';

export interface QueueEventsOptions {
  /** ioredis options, a redis:// URL or an ioredis instance; required by the Redis storage. */
  connection?: ConnectionOptions;
  prefix?: string;
  /** Start reading in the constructor (default true); otherwise call run(). */
  autorun?: boolean;
  /**
   * Stream id to read after (default '$': only events written from now on). '0' replays the
   * whole stream. '$' is pinned to the stream's last entry by the first of run() or
   * waitUntilReady(), so nothing written after that moment is missed, even across reconnects.
   */
  lastEventId?: string;
  /** Milliseconds one XREAD blocks for (default 10000). 0 blocks forever. */
  blockingTimeout?: number;
  /** bullmq switches with no effect here (see QueueBaseOptions): accepted so bullmq code runs. */
  skipVersionCheck?: boolean;
  blockingConnection?: boolean;
  skipWaitingForReady?: boolean;
  /** OxMQ: where the event log is read from (engine/backend/storage.ts). Default: Redis. */
  storage?: Storage;
  /** OxMQ: the queue's name is hash-tagged for Redis Cluster, as Queue's option of that name. */
  clusterHashTags?: boolean;
}

/** Payload of every stream event: its fields without `event`, as strings unless converted. */
export interface QueueEventArgs {
  jobId?: string;
  [field: string]: unknown;
}

type Listener<Args> = (args: Args, id: string) => void;
interface JobArgs {
  jobId: string;
  prev?: string;
}

/** The events bullmq 6.7.0 writes (docs/redis-keys.md), plus local 'error' and 'closed'. */
export interface QueueEventsListener {
  added: Listener<JobArgs & { name: string }>;
  waiting: Listener<JobArgs>;
  'waiting-children': Listener<JobArgs>;
  delayed: Listener<JobArgs & { delay: number }>;
  active: Listener<JobArgs>;
  progress: Listener<JobArgs & { data: unknown }>;
  completed: Listener<JobArgs & { returnvalue: unknown }>;
  failed: Listener<JobArgs & { failedReason: string }>;
  'retries-exhausted': Listener<JobArgs & { attemptsMade: string }>;
  stalled: Listener<JobArgs>;
  removed: Listener<JobArgs>;
  duplicated: Listener<JobArgs>;
  deduplicated: Listener<JobArgs & { deduplicationId: string; deduplicatedJobId: string }>;
  paused: Listener<Record<string, never>>;
  resumed: Listener<Record<string, never>>;
  cleaned: Listener<{ count: string }>;
  /** The only stream event emitted without args: just the entry id. */
  drained: (id: string) => void;
  error: (error: Error) => void;
  closed: () => void;
}

type AnyListener = (...args: never[]) => void;
const STOPPED = Symbol('stopped');

/** Pause after a failed read, so a persistent error (e.g. WRONGTYPE) does not spin the loop. */
const RETRY_DELAY_MS = 1_000;

export class QueueEvents extends EventEmitter {
  readonly prefix: string;
  readonly keys: QueueKeys;
  private readonly blockingTimeout: number;
  private readonly lastEventId: string;
  private readonly connection: StorageConnection;
  private readonly log: EventLogReader;
  /** The id the next XREAD reads after; undefined until the start position is fixed. */
  private position?: string;
  /** The start position being (or once) fixed; see resolveStart. */
  private start?: Promise<string>;
  /** The running loop, awaited by close(). */
  private loop?: Promise<void>;
  /** Set once close() has begun, as bullmq's `closing`. */
  closing: Promise<void> | undefined;
  /** Resolved once the loop has issued its first XREAD; rejected with ClosedError on close. */
  private readonly firstRead = deferred();
  /** Resolved by close(): every wait of the loop races it, so closing never hangs on Redis. */
  private readonly stopped = deferred();

  /** The Redis key of `type` in this queue, as bullmq's toKey. */
  readonly toKey = (type: string): string => this.keys.base + type;

  /** The queue's name (with clusterHashTags, the hash-tagged one). */
  readonly name: string;

  constructor(
    name: string,
    readonly opts: QueueEventsOptions,
  ) {
    super();
    if (!opts) throw new ValidationError('QueueEvents needs a connection option');
    checkStorageOption(opts.storage);
    this.prefix = opts.prefix ?? DEFAULTS.prefix;
    this.name = opts.clusterHashTags ? hashTaggedName(this.prefix, name) : name;
    this.keys = new QueueKeys(this.prefix, this.name);
    this.blockingTimeout = opts.blockingTimeout ?? DEFAULTS.queueEvents.blockingTimeout;
    this.lastEventId = opts.lastEventId ?? '$';
    // A connection of its own: its reads may block (docs/redis-keys.md names it for bullmq's
    // queue.getQueueEvents()).
    const storage = opts.storage ?? defaultStorage;
    const queue = { prefix: this.prefix, name: this.name };
    this.connection = storage.connect({ role: 'events', connection: opts.connection, queue });
    // Without a listener ioredis would print every reconnect failure; forward them instead.
    this.connection.onError((error) => this.emitError(error));
    this.log = storage.events({ connection: this.connection, queue });
    if (opts.autorun ?? true) {
      this.run().catch((error: unknown) => this.emitError(error));
    }
  }

  /**
   * Resolves when the connection is ready and the read position is fixed, and (when running)
   * the first XREAD has been issued. With lastEventId '$', every event written after this
   * resolves is delivered: '$' was replaced by the id of the stream's last entry, read over the
   * ready connection before resolving, so a later XADD always gets a greater id. Rejects with
   * ClosedError when closed first.
   */
  async waitUntilReady(): Promise<void> {
    const closed = () => new ClosedError(`QueueEvents ${this.name} is closed`);
    if (this.closing) throw closed();
    try {
      if ((await this.untilStopped(this.resolveStart())) === STOPPED) throw closed();
    } catch (error) {
      throw this.closing ? closed() : error;
    }
    if (this.loop) await this.firstRead.promise;
  }

  /** Reads until close(); resolves then. Throws when already running or closed. */
  run(): Promise<void> {
    if (this.closing) return Promise.reject(new ClosedError(`QueueEvents ${this.name} is closed`));
    if (this.loop) return Promise.reject(new Error('QueueEvents is already running'));
    this.loop = this.consume();
    return this.loop;
  }

  /** `<prefix>:<name>`. */
  get qualifiedName(): string {
    return this.keys.queueKey;
  }

  /** The same as close(): the reading connection is always dropped, never drained. */
  disconnect(): Promise<void> {
    return this.close();
  }

  /** Stops reading, drops the connection (interrupting a pending XREAD), emits 'closed'. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.stopped.resolve();
    this.firstRead.reject(new ClosedError(`QueueEvents ${this.name} is closed`));
    await this.loop;
    // The reading connection is always the reader's own: dropped, never drained (a graceful
    // close would wait behind a blocked read).
    await this.connection.disconnect();
    this.emit('closed');
  }

  private async consume(): Promise<void> {
    while (!this.closing) {
      try {
        if (this.position === undefined) {
          const start = await this.untilStopped(this.resolveStart());
          if (start === STOPPED) break;
          this.position = start;
        }
        for (const [id, fields] of await this.read(this.position)) {
          // Advance first: if a listener throws, the rest of the batch is read again, not lost.
          this.position = id;
          this.dispatch(id, fields);
        }
      } catch (error) {
        if (this.closing) break;
        this.emitError(error);
        await this.untilStopped(delay(RETRY_DELAY_MS));
      }
    }
  }

  /** One read after `lastId`; the entries read (none on timeout, or once closing). */
  private async read(lastId: string): Promise<EventLogEntry[]> {
    const reading = this.log.read(lastId, this.blockingTimeout);
    this.firstRead.resolve();
    // Close may leave the read unanswered or failing (its connection is dropped).
    reading.catch(() => undefined);
    const entries = await this.untilStopped(reading);
    return entries === STOPPED ? [] : entries;
  }

  /** Emits one stream entry as bullmq does: `<event>` and `<event>:<jobId>`, or drained(id). */
  private dispatch(id: string, fields: string[]): void {
    const { event, ...args } = fieldsToObject(fields);
    if (event === undefined) return; // not an event entry; nothing to name it by
    if (event === 'drained') {
      this.emit(event, id);
      return;
    }
    const payload = convertArgs(event, args);
    this.emit(event, payload, id);
    if (payload.jobId) this.emit(`${event}:${payload.jobId}`, payload, id);
  }

  /**
   * Fixes the start position once. A literal '$' would be evaluated by Redis only when the
   * XREAD executes, later than the caller may assume; reading the last id now makes the
   * position a fact by the time waitUntilReady() resolves. A failure is retried on next call.
   */
  private resolveStart(): Promise<string> {
    if (!this.start) {
      const start = this.lastEventId === '$' ? this.log.lastId() : this.afterPing(this.lastEventId);
      this.start = start;
      start.catch(() => {
        if (this.start === start) this.start = undefined;
      });
    }
    return this.start;
  }

  /** Resolves to `id` once the connection is ready (commands queue until then). */
  private async afterPing(id: string): Promise<string> {
    await this.log.ping();
    return id;
  }

  private untilStopped<T>(promise: Promise<T>): Promise<T | typeof STOPPED> {
    return Promise.race([promise, this.stopped.promise.then((): typeof STOPPED => STOPPED)]);
  }

  private emitError(error: unknown): void {
    // An 'error' without listeners would throw and crash the process; a reader must not.
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  // Typed overloads for the known events; any other name (`completed:<jobId>`, custom events
  // from QueueEventsProducer) falls through to the untyped form.
  override on<E extends keyof QueueEventsListener>(
    event: E,
    listener: QueueEventsListener[E],
  ): this;
  override on(event: string | symbol, listener: AnyListener): this;
  override on(event: string | symbol, listener: AnyListener): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }

  override once<E extends keyof QueueEventsListener>(
    event: E,
    listener: QueueEventsListener[E],
  ): this;
  override once(event: string | symbol, listener: AnyListener): this;
  override once(event: string | symbol, listener: AnyListener): this {
    return super.once(event, listener as (...args: unknown[]) => void);
  }

  override off<E extends keyof QueueEventsListener>(
    event: E,
    listener: QueueEventsListener[E],
  ): this;
  override off(event: string | symbol, listener: AnyListener): this;
  override off(event: string | symbol, listener: AnyListener): this {
    return super.off(event, listener as (...args: unknown[]) => void);
  }
}

function fieldsToObject(fields: string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) {
    object[fields[i] as string] = fields[i + 1] as string;
  }
  return object;
}

/** bullmq's conversions (docs/redis-keys.md); all other values stay strings. */
function convertArgs(event: string, args: Record<string, string>): QueueEventArgs {
  const converted: QueueEventArgs = { ...args };
  if (event === 'progress' && args.data !== undefined) converted.data = parseJson(args.data);
  if (event === 'completed' && args.returnvalue !== undefined) {
    converted.returnvalue = parseJson(args.returnvalue);
  }
  if (event === 'delayed' && args.delay !== undefined) converted.delay = Number(args.delay);
  return converted;
}

/**
 * JSON text written by a well-behaved producer; a foreign writer's plain text is passed on as
 * is (bullmq would throw and stop its loop on it).
 */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting when close() rejects it; that must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
