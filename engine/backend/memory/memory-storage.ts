/**
 * The memory storage: an in-process implementation of every storage interface, over one
 * MemoryStore that all the queues it serves share (so flows link queues as on Redis). It is
 * the reference the conformance suite holds the Redis storage to, a storage for tests and
 * embedding, and a readable statement of the semantics; it is no bullmq peer (nothing else can
 * read it), lives in one process and keeps nothing past it (docs/engine-package.md).
 */
import type { Storage } from '../storage';
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
  return {
    queue: ({ keys }) => ({
      backend: new MemoryQueueBackend(store, keys),
      ops: new MemoryQueueOperations(store, keys),
      groups: new MemoryGroupOperations(store, keys),
      schedulers: new MemorySchedulerStorage(store, keys),
      workers: new MemoryWorkerRegistry(store, keys),
      history: new MemoryTimingHistory(store, keys),
    }),
    flows: () => new MemoryFlowStorage(store),
    events: ({ keys }) => new MemoryEventLogReader(store, keys),
  };
}
