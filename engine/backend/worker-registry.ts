/**
 * The live workers of one queue, as their heartbeats keep them (engine/worker/heartbeat.ts):
 * each worker writes its record every interval, with a lifetime of a few intervals, and takes
 * back what was asked of it meanwhile: a command (quiet, resume) and cancel requests for its
 * jobs (QueueOperations.requestJobCancel leaves those, for a job whose lock names the worker).
 * The Redis implementation is engine/backend/redis/worker-registry.ts.
 */

/** Commands a worker takes on its heartbeat. */
export type WorkerCommand = 'quiet' | 'resume';

/** A cancel request as the worker receives it. */
export interface CancelRequest {
  reason: string;
  /** Kill the sandbox child running the job (a processor that ignores its signal). */
  force: boolean;
}

export interface HeartbeatReply {
  /** The command left for the worker, until another replaces it. */
  command?: WorkerCommand;
  /** Cancel requests for the worker's jobs since its last beat, each handed over once. */
  cancels: { jobId: string; request: CancelRequest }[];
}

export interface WorkerRegistry {
  /**
   * Writes the worker's record (fields as text), alive for `ttlMs` from `now`, and hands over
   * what was asked of the worker since its last beat.
   */
  beat(
    workerId: string,
    record: Record<string, string>,
    ttlMs: number,
    now: number,
  ): Promise<HeartbeatReply>;
  /** Deletes the worker's record and what waits for it (the worker closed). */
  remove(workerId: string): Promise<void>;
  /** Leaves a command for a live worker, taken at its next beat; false when none has that id. */
  commandWorker(workerId: string, command: WorkerCommand): Promise<boolean>;
  /** The records of the live workers, the most recent beat first. */
  listWorkers(): Promise<Record<string, string>[]>;
}
