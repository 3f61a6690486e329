/** WorkerRegistry in memory: a queue's live workers (memory-workers.ts). */
import type { QueueKeys } from '../../queue/keys';
import type { HeartbeatReply, WorkerCommand, WorkerRegistry } from '../worker-registry';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';

export class MemoryWorkerRegistry implements WorkerRegistry {
  private readonly queue: MemoryQueue;

  constructor(store: MemoryStore, keys: QueueKeys) {
    this.queue = store.queue(keys);
  }

  async beat(
    workerId: string,
    record: Record<string, string>,
    ttlMs: number,
    now: number,
  ): Promise<HeartbeatReply> {
    return this.queue.workers.beat(workerId, record, ttlMs, now);
  }

  async remove(workerId: string): Promise<void> {
    this.queue.workers.remove(workerId);
  }

  async commandWorker(workerId: string, command: WorkerCommand): Promise<boolean> {
    return this.queue.workers.command(workerId, command);
  }

  async listWorkers(): Promise<Record<string, string>[]> {
    return this.queue.workers.list();
  }
}
