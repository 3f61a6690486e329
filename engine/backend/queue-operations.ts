/**
 * Operations on jobs and queues outside the worker's hot path: state reads, listings, pause,
 * cleanup and the per-job admin moves. Implemented by RedisQueueOperations.
 * Destructive operations over many jobs run in bounded chunks (DEFAULTS.chunkSize per script
 * call) and loop on the client, so no single script blocks Redis for long.
 */
import type { RawJobHash } from './queue-backend';

/** Job states as bullmq names them in getJobCounts / getJobs / getState. */
export type JobState =
  | 'completed'
  | 'failed'
  | 'delayed'
  | 'active'
  | 'wait'
  | 'waiting'
  | 'paused'
  | 'prioritized'
  | 'waiting-children';

export type JobStateReply = Exclude<JobState, 'wait' | 'paused'> | 'unknown';

export type CleanState =
  'completed' | 'failed' | 'delayed' | 'wait' | 'paused' | 'active' | 'prioritized';

export interface QueueOperations {
  /** Counts per type; `waiting` and `wait` both mean the wait list. */
  getCounts(types: JobState[]): Promise<Record<string, number>>;
  /** Ids and hashes in [start, end] of the given states, in order (asc: oldest first). Skips ids without a hash. */
  getJobsInStates(
    types: JobState[],
    start: number,
    end: number,
    asc: boolean,
  ): Promise<{ id: string; hash: RawJobHash }[]>;
  getState(jobId: string): Promise<JobStateReply>;
  getLogs(
    jobId: string,
    start: number,
    end: number,
    asc: boolean,
  ): Promise<{ logs: string[]; count: number }>;
  getMeta(): Promise<Record<string, string>>;

  /** Sets or clears meta.paused; resume also migrates a legacy `paused` list back into wait. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  isPaused(): Promise<boolean>;

  /** Removes waiting and prioritized jobs (and delayed when asked), in chunks. Returns how many. */
  drain(includeDelayed: boolean): Promise<number>;
  /** Removes jobs of `state` finished/created at or before now - grace, at most `limit` (0 = all). Returns their ids. */
  clean(grace: number, limit: number, state: CleanState): Promise<string[]>;
  /** Deletes the queue and all its jobs, in chunks of `count`; needs a paused queue; active jobs need force. */
  obliterate(opts: { force: boolean; count: number }): Promise<void>;

  /** 1 removed, 0 locked (left alone). Throws JobBelongsToSchedulerError for a scheduler's current job. */
  removeJob(jobId: string, removeChildren: boolean): Promise<number>;
  /** Moves every job of `state` with score <= timestamp back to wait, `count` per script call. */
  retryJobs(state: 'failed' | 'completed', count: number, timestamp: number): Promise<void>;
  promoteJobs(count: number): Promise<void>;

  /** A completed or failed job back to wait (job.retry). */
  reprocessJob(
    jobId: string,
    state: 'completed' | 'failed',
    opts: { lifo: boolean; resetAttemptsMade: boolean; resetAttemptsStarted: boolean },
  ): Promise<void>;
  promoteJob(jobId: string): Promise<void>;
  changeDelay(jobId: string, delay: number): Promise<void>;
  changePriority(jobId: string, priority: number, lifo: boolean): Promise<void>;

  setGlobalConcurrency(concurrency: number | undefined): Promise<void>;
  setGlobalRateLimit(limit: { max: number; duration: number } | undefined): Promise<void>;
  /** Manual rate limit: no worker takes a job for `ms`. */
  rateLimit(ms: number): Promise<void>;
  getRateLimitTtl(maxJobs?: number): Promise<number>;
  /** Raw client names of connections named as workers of this queue (CLIENT LIST). */
  getWorkerClients(): Promise<Record<string, string>[]>;
}
