/**
 * How the engine gets its storage. A Queue, Worker, FlowProducer, QueueEvents or
 * QueueEventsProducer connects to its storage once (`connect`), holds the StorageConnection it
 * gets (opaque to it but for its lifecycle), and builds from it the interfaces everything else
 * uses:
 * - `queue`: one queue's jobs (QueueBackend), its admin operations (QueueOperations), its tenant
 *   groups (GroupOperations), its job schedulers (SchedulerStorage), its live workers
 *   (WorkerRegistry) and its timing history (TimingHistoryStore);
 * - `flows`: parent/child trees across queues, added atomically and read back (FlowStorage);
 * - `events`: a reader of one queue's event log, for QueueEvents (EventLogReader).
 * Nothing here is Redis's: the default storage, `redisStorage` (engine/backend/redis/), stores
 * everything as bullmq 6.7.0 does; `memoryStorage` (engine/backend/memory/) keeps it in the
 * process. Another storage is injected with the `storage` option and must pass the conformance
 * suite (test/conformance/, run per storage by its harness.ts).
 */
import { ValidationError } from '../errors';
import type { EventLogReader } from './event-log';
import type { FlowStorage } from './flow-storage';
import type { QueueBackend } from './queue-backend';
import type { QueueRef } from './queue-ref';
import type { GroupOperations, QueueOperations } from './queue-operations';
import type { RedisQueueChores } from './redis-queue-chores';
import type { SchedulerStorage } from './scheduler-storage';
import type { TimingHistoryStore } from './timing-history';
import type { WorkerRegistry } from './worker-registry';

export type { QueueRef } from './queue-ref';

/** Who connects, which tells a storage what lines to open (a worker also waits for work). */
export type StorageRole = 'queue' | 'worker' | 'flows' | 'events' | 'producer';

export interface ConnectRequest {
  role: StorageRole;
  /** The `connection` option as given: the Redis storage's business; others may need none. */
  connection: unknown;
  /** The queue served (absent for a FlowProducer, which serves any queue of its prefix). */
  queue?: QueueRef;
  /** A worker's `name` option. */
  workerName?: string;
}

/**
 * What a class holds of its storage between connect and close: opaque but for its lifecycle.
 * The storage that made it is the only one that looks inside.
 */
export interface StorageConnection {
  /** Resolves once the storage answers; rejects when the connection ends first. */
  ready(): Promise<void>;
  /** Resolves once a connection attempt under way has ended, whichever way (at once if none). */
  settled(): Promise<void>;
  /**
   * Resolves at once while the storage cannot be reached, else when it no longer can: closing
   * paths race their waits against it, since calls then never answer.
   */
  lost(): Promise<void>;
  /** Errors met outside of a call (a dropped connection). */
  onError(listener: (error: Error) => void): void;
  /** Lets go once what was sent is answered (what the class was given, it leaves alone). */
  close(): Promise<void>;
  /** Lets go at once, without waiting for answers. */
  disconnect(): Promise<void>;
}

/** What `queue`, `flows` and `events` build from: a connection, and the queue served. */
export interface StorageContext {
  connection: StorageConnection;
  queue: QueueRef;
}

export interface QueueStorage {
  backend: QueueBackend;
  ops: QueueOperations;
  groups: GroupOperations;
  schedulers: SchedulerStorage;
  /** The queue's live workers, by their heartbeats. */
  workers: WorkerRegistry;
  /** The queue's timing history, which workers add to. */
  history: TimingHistoryStore;
  /** Only the Redis storage has it: chores that have no meaning for another storage. */
  redis?: RedisQueueChores;
}

export interface Storage {
  /** Opens what the class needs (refusing a `connection` option the storage cannot use). */
  connect(request: ConnectRequest): StorageConnection;
  /** One queue's storage, for a Queue, a Worker, or the jobs a FlowProducer returns. */
  queue(context: StorageContext): QueueStorage;
  /** Flows across the queues of one prefix. */
  flows(context: { connection: StorageConnection }): FlowStorage;
  /** One queue's event log, over a QueueEvents' connection. */
  events(context: StorageContext): EventLogReader;
}

const STORAGE_PARTS = ['connect', 'queue', 'flows', 'events'] as const;

/** The `storage` option of a Queue, Worker, FlowProducer, QueueEvents or producer, when given. */
export function checkStorageOption(storage: unknown): void {
  if (storage === undefined) return;
  const complete =
    storage !== null &&
    typeof storage === 'object' &&
    STORAGE_PARTS.every((part) => typeof (storage as Record<string, unknown>)[part] === 'function');
  if (!complete) {
    throw new ValidationError(
      'storage must be an object with the functions connect, queue, flows and events (engine/backend/storage.ts)',
    );
  }
}
