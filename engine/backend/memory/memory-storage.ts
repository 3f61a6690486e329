/**
 * The memory storage: an in-process implementation of every storage interface, over one
 * MemoryStore that all the queues it serves share (so flows link queues as on Redis). It is
 * the reference the conformance suite holds the Redis storage to, a storage for tests and
 * embedding, and a readable statement of the semantics; it is no bullmq peer (nothing else can
 * read it), lives in one process and keeps nothing past it (docs/engine-package.md).
 */
import { QueueKeys } from '../../queue/keys';
import type { QueueRef, Storage } from '../storage';
import { MemoryConnection, memoryConnectionOf } from './memory-connection';
import { MemoryEventLogReader } from './memory-event-log-reader';
import { MemoryFlowStorage } from './memory-flow-storage';
import { MemoryGroupOperations } from './memory-group-operations';
import { MemoryTimingHistory } from './memory-history';
import { MemoryQueueBackend } from './memory-queue-backend';
import { MemoryQueueOperations } from './memory-queue-operations';
import { MemorySchedulerStorage } from './memory-schedulers';
import { MemoryStore } from './memory-store';
import { MemoryWorkerRegistry } from './memory-worker-registry';

/** A new, empty memory storage: pass the same one to every Queue, Worker... that share it. */
export function memoryStorage(): Storage {
  const store = new MemoryStore();
  const keysOf = (queue: QueueRef) => new QueueKeys(queue.prefix, queue.name);
  return {
    // The `connection` option is the Redis storage's: there is nothing to connect to here.
    connect: () => new MemoryConnection(),
    queue: ({ connection, queue }) => {
      const { signal } = memoryConnectionOf(connection);
      const keys = keysOf(queue);
      return {
        backend: new MemoryQueueBackend(store, keys, signal),
        ops: new MemoryQueueOperations(store, keys),
        groups: new MemoryGroupOperations(store, keys),
        schedulers: new MemorySchedulerStorage(store, keys),
        workers: new MemoryWorkerRegistry(store, keys),
        history: new MemoryTimingHistory(store, keys),
      };
    },
    flows: ({ connection }) => {
      memoryConnectionOf(connection);
      return new MemoryFlowStorage(store);
    },
    events: ({ connection, queue }) =>
      new MemoryEventLogReader(store, keysOf(queue), memoryConnectionOf(connection).signal),
  };
}
