/**
 * The live workers of a memory queue (WorkerRegistry): each record lives until its ttl runs
 * out without a new beat; commands and cancel requests wait beside it until its next beat.
 */
import type { CancelRequest, HeartbeatReply, WorkerCommand } from '../worker-registry';

interface LiveWorker {
  record: Record<string, string>;
  expiresAt: number;
  lastBeat: number;
  command?: WorkerCommand;
  cancels: Map<string, CancelRequest>;
}

export class MemoryWorkers {
  private readonly workers = new Map<string, LiveWorker>();

  /** The worker, while its record lives. */
  live(workerId: string, now = Date.now()): LiveWorker | undefined {
    const worker = this.workers.get(workerId);
    if (worker && worker.expiresAt <= now) {
      this.workers.delete(workerId);
      return undefined;
    }
    return worker;
  }

  beat(workerId: string, record: Record<string, string>, ttlMs: number, now: number) {
    const worker: LiveWorker = this.live(workerId, now) ?? {
      record: {},
      expiresAt: 0,
      lastBeat: 0,
      cancels: new Map(),
    };
    worker.record = { ...worker.record, ...record };
    worker.expiresAt = now + ttlMs;
    worker.lastBeat = now;
    this.workers.set(workerId, worker);
    const cancels = [...worker.cancels].map(([jobId, request]) => ({ jobId, request }));
    worker.cancels.clear();
    const reply: HeartbeatReply = { cancels };
    if (worker.command) reply.command = worker.command;
    return reply;
  }

  remove(workerId: string): void {
    this.workers.delete(workerId);
  }

  command(workerId: string, command: WorkerCommand): boolean {
    const worker = this.live(workerId);
    if (!worker) return false;
    worker.command = command;
    worker.record.command = command;
    return true;
  }

  list(): Record<string, string>[] {
    const now = Date.now();
    return [...this.workers.keys()]
      .flatMap((id) => {
        const worker = this.live(id, now);
        return worker ? [worker] : [];
      })
      .sort((a, b) => b.lastBeat - a.lastBeat)
      .map((worker) => ({ ...worker.record }));
  }
}
