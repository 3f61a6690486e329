/**
 * Operations on jobs and queues outside the worker's hot path: state reads, listings, pause,
 * cleanup and the per-job admin moves. Implemented by RedisQueueOperations.
 * Destructive operations over many jobs run in bounded chunks (DEFAULTS.chunkSize per script
 * call) and loop on the client, so no single script blocks Redis for long.
 */
import type { RawJobHash } from './queue-backend';
import type { DependencyJobJson } from '../job/dependency-json';

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

/**
 * The states bullmq 6.7's Queue.getJobCounts() counts when given none, in the order it reports
 * them (a paused queue's jobs count as waiting).
 */
export const DEFAULT_COUNT_STATES = [
  'active',
  'completed',
  'delayed',
  'failed',
  'prioritized',
  'waiting',
  'waiting-children',
] as const satisfies readonly JobState[];

/** The four records a parent keeps about its children (docs/redis-keys.md). */
export type DependencyKind = 'processed' | 'unprocessed' | 'ignored' | 'failed';

/** One page request: SSCAN/HSCAN cursor (processed, unprocessed, ignored) or ZRANGE offset (failed). */
export interface DependencyPageRequest {
  cursor: number;
  count: number;
}

/** Everything a parent records about its children; values as stored (JSON or raw text). */
export interface RawDependencies {
  /** child key → return value JSON (`:processed`). */
  processed: [string, string][];
  /** child keys still pending (`:dependencies`). */
  unprocessed: string[];
  /** child key → failedReason (`:failed`: ignoreDependencyOnFailure, continueParentOnFailure). */
  ignored: [string, string][];
  /** child keys that failed with failParentOnFailure (`:unsuccessful`, oldest first). */
  failed: string[];
}

/** One page per requested kind; `next` is 0 once that kind has been read to its end. */
export type RawDependencyPages = {
  processed?: { next: number; entries: [string, string][] };
  unprocessed?: { next: number; keys: string[] };
  ignored?: { next: number; entries: [string, string][] };
  failed?: { next: number; keys: string[] };
};

/** One child in a dependency listing (bullmq's getDependencies shape). */
export interface DependencyItem {
  /** The child's full job key, `<prefix>:<queue>:<id>`. */
  id: string;
  /** A processed child's return value, parsed. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bullmq types it any: a child's return value
  v?: any;
}

export interface DependencyListing {
  items: DependencyItem[];
  /** The listed children that still exist, in bullmq's listing form. */
  jobs: DependencyJobJson[];
  /** How many children of that kind the parent has. */
  total: number;
}

/**
 * What a cancel request became:
 * - `requested`: a live OxMQ worker holds the job; it is woken at once and ends the attempt as
 *   cancelled (see Queue.cancelJob);
 * - `not-active`: the job is not active (missing, waiting, finished ...): nothing to cancel;
 * - `held-by-bullmq`: the job is active but no live OxMQ worker holds it (a bullmq worker, which
 *   has no cancel channel through Redis; manual processing; a worker with heartbeats off).
 */
export type CancelRequestOutcome = 'requested' | 'not-active' | 'held-by-bullmq';

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

  // ---- ranges and housekeeping ----
  /** Delayed jobs; with `timestamp` (ms), only those due strictly before it. */
  getDelayedCount(timestamp?: number): Promise<number>;
  /** Waiting jobs per priority (0: the wait list), keyed by the priorities asked for. */
  getCountsPerPriority(priorities: number[]): Promise<Record<string, number>>;
  /** Job ids in [start, end] of each state, each id once. */
  getRanges(types: JobState[], start: number, end: number, asc: boolean): Promise<string[]>;
  /** One page of a parent's pending or processed children, in bullmq's listing shape. */
  getDependencyListing(
    parentId: string,
    type: 'processed' | 'pending',
    start: number,
    end: number,
  ): Promise<DependencyListing>;
  /** Ends the current rate-limit window now; 1 if there was one. */
  removeRateLimitKey(): Promise<number>;
  /** True when a global concurrency is set and that many jobs are active. */
  isMaxed(): Promise<boolean>;
  /** Trims the events stream to about `maxLength` entries; returns how many were dropped. */
  trimEvents(maxLength: number): Promise<number>;
  /** Asks the OxMQ worker holding an active job to cancel it (see Queue.cancelJob). */
  requestJobCancel(
    jobId: string,
    reason: string,
    opts?: { force?: boolean },
  ): Promise<CancelRequestOutcome>;

  // ---- a job's children (flows), implemented in redis/dependencies.ts ----
  /** `<job>:processed`: child key → return value JSON. */
  getProcessedChildren(jobId: string): Promise<Record<string, string>>;
  /** `<job>:failed`: child key → failedReason of children whose failure was ignored. */
  getIgnoredChildrenFailures(jobId: string): Promise<Record<string, string>>;
  /** All four records, read in one atomic snapshot. */
  getDependencies(jobId: string): Promise<RawDependencies>;
  /** One bounded page of each requested kind, read in one atomic snapshot. */
  getDependencyPages(
    jobId: string,
    requests: Partial<Record<DependencyKind, DependencyPageRequest>>,
  ): Promise<RawDependencyPages>;
  /** Sizes of the requested kinds, in the order asked. */
  getDependencyCounts(jobId: string, kinds: DependencyKind[]): Promise<number[]>;
  /**
   * Parks an active job (locked by `token`) in waiting-children while it has pending children
   * (or while `childKey`, a full job key, is pending). True when moved, false when nothing is
   * pending (the job stays active). Throws FailedChildrenError when a child failed the parent.
   */
  moveToWaitingChildren(jobId: string, token: string, childKey?: string): Promise<boolean>;
  /**
   * Takes a child out of its parent's pending dependencies (parentKey: full key; omitted: the one
   * the child records), releasing a parent left with none. False when it was not pending there.
   */
  removeChildDependency(jobId: string, parentKey?: string): Promise<boolean>;
  /**
   * Removes the job's pending children (each with its descendants), leaving locked and failed
   * ones; a parent left with none pending is released. Returns how many were removed.
   */
  removeUnprocessedChildren(jobId: string): Promise<number>;
}

/** A tenant group as the console sees it (one atomic read). */
export interface GroupInfo {
  id: string;
  /** Jobs ready to run in the group's line (delayed ones are not counted). */
  waiting: number;
  /** The group's jobs being processed now. */
  active: number;
  paused: boolean;
  /** Effective cap: the group's own, else the queue-wide default; null when there is none. */
  concurrency: number | null;
  /** Effective rate limit (own, else default); null when there is none. */
  rateLimit: { max: number; duration: number } | null;
  /** ms until the rate limit lets one of the group's jobs start; 0 when one may start now. */
  rateLimitTtl: number;
}

/** Queue-wide settings of every group without its own (a given null clears one). */
export interface GroupDefaults {
  concurrency?: number | null;
  rateLimit?: { max: number; duration: number } | null;
}

/**
 * Tenant groups (OxMQ only; keys in docs/redis-keys.md, "Groups"). Implemented by
 * RedisGroupOperations (redis/redis-group-operations.ts). Every setter validates before it writes
 * and wakes idle workers when grouped jobs wait.
 */
export interface GroupOperations {
  /** undefined removes the group's own cap (the default, if any, applies). */
  setGroupConcurrency(groupId: string, concurrency: number | undefined): Promise<void>;
  /** undefined removes the group's own limit (the default, if any, applies). */
  setGroupRateLimit(
    groupId: string,
    limit: { max: number; duration: number } | undefined,
  ): Promise<void>;
  setGroupPaused(groupId: string, paused: boolean): Promise<void>;
  /** Sets the given defaults; null clears one; omitted ones stay as they are. */
  setGroupDefaults(defaults: GroupDefaults): Promise<void>;
  getGroupDefaults(): Promise<{
    concurrency: number | null;
    rateLimit: { max: number; duration: number } | null;
  }>;
  /** One snapshot of the given groups, in order. */
  getGroups(groupIds: string[]): Promise<GroupInfo[]>;
  /**
   * One page of the ids of every group ever used or configured, in lexicographic order, after
   * `cursor` ('' for the first page). The returned cursor is '' after the last page.
   */
  listGroupIds(cursor: string, count: number): Promise<{ ids: string[]; cursor: string }>;
  /** Ids and hashes of the group's waiting jobs, next to run first, [start, end] of its line. */
  getGroupJobs(
    groupId: string,
    start: number,
    end: number,
  ): Promise<{ id: string; hash: RawJobHash }[]>;
}
