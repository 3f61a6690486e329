/**
 * How the engine gets its storage: one object that builds, from the connections a Queue, Worker,
 * FlowProducer or QueueEvents opened, the interfaces everything else uses:
 * - `queue`: one queue's jobs (QueueBackend), its admin operations (QueueOperations), its tenant
 *   groups (GroupOperations), its job schedulers (SchedulerStorage), its live workers
 *   (WorkerRegistry) and its timing history (TimingHistoryStore);
 * - `flows`: parent/child trees across queues, added atomically and read back (FlowStorage);
 * - `events`: a reader of one queue's event log, for QueueEvents (EventLogReader).
 * The default, `redisStorage`, stores everything as bullmq 6.7.0 does. Another storage is
 * injected with the `storage` option and must pass the backend conformance suite
 * (test/conformance/, run per storage by its harness.ts).
 */
import type { RedisClient } from '../connection';
import { ValidationError } from '../errors';
import type { QueueKeys } from '../keys';
import type { EventLogReader } from './event-log';
import type { FlowStorage } from './flow-storage';
import type { QueueBackend } from './queue-backend';
import type { GroupOperations, QueueOperations } from './queue-operations';
import { RedisEventLogReader } from './redis/event-log-reader';
import { RedisFlowStorage } from './redis/flow-storage';
import { RedisGroupOperations } from './redis/groups';
import { RedisTimingHistory } from './redis/history-store';
import { RedisQueueOperations } from './redis/queue-operations';
import { RedisChores } from './redis/queue-chores';
import { RedisQueueBackend } from './redis/redis-queue-backend';
import { RedisSchedulerStorage } from './redis/scheduler-store';
import { RedisWorkerRegistry } from './redis/worker-registry';
import type { RedisQueueChores } from './redis-queue-chores';
import type { SchedulerStorage } from './scheduler-storage';
import type { TimingHistoryStore } from './timing-history';
import type { WorkerRegistry } from './worker-registry';

export interface StorageContext {
  keys: QueueKeys;
  /** The command connection. */
  client: RedisClient;
  /** A Worker's blocking connection (marker waits); absent for a Queue. */
  blockingClient?: RedisClient;
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
  /** One queue's storage, for a Queue, a Worker, or the jobs a FlowProducer returns. */
  queue(context: StorageContext): QueueStorage;
  /** Flows across the queues of one prefix, over a FlowProducer's connection. */
  flows(context: { client: RedisClient }): FlowStorage;
  /** One queue's event log, over a QueueEvents' own (blocking) connection. */
  events(context: { keys: QueueKeys; client: RedisClient }): EventLogReader;
}

const STORAGE_PARTS = ['queue', 'flows', 'events'] as const;

/** The `storage` option of a Queue, Worker, FlowProducer or QueueEvents, when given. */
export function checkStorageOption(storage: unknown): void {
  if (storage === undefined) return;
  const complete =
    storage !== null &&
    typeof storage === 'object' &&
    STORAGE_PARTS.every((part) => typeof (storage as Record<string, unknown>)[part] === 'function');
  if (!complete) {
    throw new ValidationError(
      'storage must be an object with the functions queue, flows and events (engine/backend/storage.ts)',
    );
  }
}

export const redisStorage: Storage = {
  queue: ({ keys, client, blockingClient }) => ({
    backend: new RedisQueueBackend(client, keys, blockingClient),
    ops: new RedisQueueOperations(client, keys),
    groups: new RedisGroupOperations(client, keys),
    schedulers: new RedisSchedulerStorage(client, keys),
    workers: new RedisWorkerRegistry(client, keys),
    history: new RedisTimingHistory(client, keys),
    redis: new RedisChores(client, keys),
  }),
  flows: ({ client }) => new RedisFlowStorage(client),
  events: ({ keys, client }) => new RedisEventLogReader(client, keys),
};
