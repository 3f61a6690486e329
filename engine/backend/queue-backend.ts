/**
 * The storage seam. Queue, Worker and Job speak to storage only through this interface, which
 * states what each operation means rather than how Redis does it. RedisQueueBackend is the one
 * implementation; its methods are atomic unless documented otherwise. What any implementation
 * must do, with QueueOperations, is the conformance suite (test/conformance/).
 */
import type { DurableOptions } from '../job/options';

export type RawJobHash = Record<string, string>;

export interface NewJob {
  name: string;
  /** JSON text. */
  data: string;
  /** JSON text of the encoded (short-key) options. */
  opts: string;
  timestamp: number;
  delay: number;
  priority: number;
  lifo: boolean;
  /** Omitted for an automatic id. */
  customId?: string;
  /** Extra hash fields, e.g. traceparent. */
  fields: Record<string, string>;
  /** The job is a child: it joins this parent's dependencies. */
  parent?: { key: string; link: ParentLinkFields };
  /** The job is a flow parent: it waits in waiting-children until its children finish. */
  asParent?: boolean;
  deduplication?: {
    id: string;
    ttl?: number;
    extend?: boolean;
    replace?: boolean;
    reschedule?: boolean;
  };
  /** Tenant group: the job waits in that group's line and gets the hash field `gid`. */
  groupId?: string;
}

/** The `parent` hash field of a child (bullmq's layout). */
export interface ParentLinkFields {
  id: string;
  /** `<prefix>:<queueName>` of the parent. */
  queueKey: string;
  fpof?: boolean;
  cpof?: boolean;
  idof?: boolean;
  rdof?: boolean;
}

export interface AddResult {
  jobId: string;
  /** With `durable`: how many replicas confirmed the add within its timeout. */
  replicasConfirmed?: number;
  /** True when a job with that custom id already existed: nothing was written. */
  duplicate: boolean;
  /** True when deduplication kept the window's owner (jobId) instead: nothing was stored. */
  deduplicated?: boolean;
}

/** What a worker sends with every fetch: its lock token and the limits it applies. */
export interface FetchIdentity {
  token: string;
  lockDuration: number;
  limiter?: { max: number; duration: number };
  name?: string;
}

export type FetchResult =
  | { kind: 'job'; jobId: string; hash: RawJobHash }
  | {
      kind: 'none';
      /** > 0: the rate limit holds for this many ms. */
      rateLimitTtl: number;
      /** > 0: due time (ms) of the earliest delayed job. */
      nextDelayedTs: number;
      /** The queue is paused or at its global concurrency (no marker may announce the change). */
      held?: boolean;
    };

/** Normalised removeOnComplete / removeOnFail: count -1 keeps all, 0 removes the job. */
export interface KeepRule {
  count: number;
  age?: number;
  limit?: number;
}

export interface FinishRequest {
  jobId: string;
  token: string;
  outcome: 'completed' | 'failed';
  /** Return value JSON (completed) or failure reason text (failed). */
  value: string;
  keep: KeepRule;
  /** opts.attempts, for the retries-exhausted event. */
  attempts: number;
  /** Fields written with the outcome (failures: failedReason, stacktrace). */
  fields?: Record<string, string>;
  /** When set, the same call hands the worker its next job. */
  fetchNext?: FetchIdentity;
  metricsMaxDataPoints?: number;
  now?: number;
}

/** A BatchWorker's fetch: how many jobs at most, and their data's byte budget (0: none). */
export interface BatchFetchRequest {
  identity: FetchIdentity;
  batchSize: number;
  maxBatchBytes: number;
}

export type BatchFetchResult =
  | { kind: 'batch'; jobs: { jobId: string; hash: RawJobHash }[] }
  | Extract<FetchResult, { kind: 'none' }>;

export interface CompleteBatchRequest {
  /** The batch's lock token (every job of a batch is locked with it). */
  token: string;
  /** `token`: the job's own lock token when it differs from the batch's. */
  jobs: { jobId: string; value: string; keep: KeepRule; token?: string }[];
  metricsMaxDataPoints?: number;
  /** When set, the same call hands the worker its next batch. */
  fetchNext?: BatchFetchRequest;
  now?: number;
}

export interface CompleteBatchResult {
  /** One entry per job, in order: undefined when completed, else why it could not be. */
  errors: (Error | undefined)[];
  next?: BatchFetchResult;
}

export interface RetryRequest {
  jobId: string;
  token: string;
  /** 0: straight back to wait; > 0: to delayed for that many ms. */
  delay: number;
  lifo: boolean;
  fields: Record<string, string>;
}

export interface Metrics {
  meta: { count: number; prevTS: number; prevCount: number };
  /** One count per minute, newest first. */
  data: number[];
  /** How many minutes are stored. */
  count: number;
}

export interface WaitOptions {
  /** Watch this worker's wake channel too. */
  wakeWorker?: string;
  /** Ends the wait early (`interrupted`). */
  signal?: AbortSignal;
  /**
   * Told of every member popped from the wake channel, also one that arrives after the wait
   * was given up (a cancel request must not be lost with it).
   */
  onWake?(member: string): void;
}

/**
 * How a wait ended besides a signal: `timeout` (nothing came), `interrupted` (its AbortSignal,
 * or its connection closing), `lost` (the storage did not answer in time or dropped the wait,
 * and its line was reset: look for work again).
 */
export type WaitOutcome = number | { wake: string } | 'timeout' | 'interrupted' | 'lost';

/** How a cancel request ended (Queue.cancelJob), as the job's timeline shows it. */
export type CancelOutcome = 'stopped' | 'force-stopped' | 'completed-anyway';

export interface QueueBackend {
  // producer
  /**
   * Adds a job. With `durable`, then waits until that many replicas hold the write (or the
   * timeout passes) and reports how many did; a storage without replicas reports 0.
   */
  addJob(job: NewJob, durable?: DurableOptions): Promise<AddResult>;
  /** All jobs in one round trip; replies in order (with `durable`, one wait for all). */
  addJobs(jobs: NewJob[], durable?: DurableOptions): Promise<AddResult[]>;
  writeQueueMeta(fields: Record<string, string>): Promise<void>;
  /**
   * Appends an entry (flat `event, <name>, field, value...`) to the queue's event log, which then
   * keeps about its newest `maxLength` entries (QueueEventsProducer's custom events).
   */
  publishEvent(fields: string[], maxLength: number): Promise<void>;

  // worker
  fetchNextJob(identity: FetchIdentity): Promise<FetchResult>;
  /** Returns the next job when fetchNext was requested and one was available. */
  finishJob(request: FinishRequest): Promise<FetchResult | undefined>;
  retryJob(request: RetryRequest): Promise<void>;
  /** Up to batchSize jobs in one call (see lua/moveToActiveBatch-9.lua). */
  fetchJobBatch(request: BatchFetchRequest): Promise<BatchFetchResult>;
  /** Completes a batch's jobs in one call; a job that cannot complete does not stop the rest. */
  completeJobBatch(request: CompleteBatchRequest): Promise<CompleteBatchResult>;
  /** Postpones an active job without using an attempt (DelayedError pattern). */
  postponeJob(jobId: string, token: string, dueTs: number): Promise<void>;
  /**
   * Back to the front of wait without using an attempt (rate-limit hit, or job.moveToWait);
   * returns the rate limit's remaining ms (0 when none).
   */
  moveActiveJobToWait(jobId: string, token: string): Promise<number>;
  /** True while `token` holds the job's lock (every move out of active releases it). */
  holdsLock(jobId: string, token: string): Promise<boolean>;
  /** Renews locks; returns the ids whose lock was lost. */
  extendLocks(jobIds: string[], tokens: string[], duration: number): Promise<string[]>;
  /** The two-phase stalled check; returns the ids recovered. Throttled by stalledInterval. */
  recoverStalledJobs(maxStalledCount: number, stalledInterval: number): Promise<string[]>;
  /**
   * Waits up to timeoutSeconds for work to be signalled: the signal's score (0: jobs are ready,
   * > 0: when the next delayed job is due). With `wakeWorker` (a worker's id) the worker's own
   * wake channel is watched too (QueueOperations.requestJobCancel writes it): `{ wake: member }`
   * when that was written. See WaitOutcome for the other answers.
   */
  waitForMarker(timeoutSeconds: number, options?: WaitOptions): Promise<WaitOutcome>;
  /** Waits up to timeoutSeconds on the worker's wake channel alone. */
  waitForWake(
    timeoutSeconds: number,
    workerId: string,
    options?: Omit<WaitOptions, 'wakeWorker'>,
  ): Promise<Exclude<WaitOutcome, number>>;

  // job
  /**
   * Notes in the event log how a cancel request ended, for the job's timeline: `cancelled`
   * (outcome stopped or force-stopped) or `cancel-ignored` (completed-anyway).
   */
  noteCancelOutcome(jobId: string, outcome: CancelOutcome): Promise<void>;
  updateProgress(jobId: string, progressJson: string): Promise<void>;
  addLog(jobId: string, line: string, keepLogs?: number): Promise<number>;
  /** Keeps only the newest `keepLogs` log lines of a job; all go without it. */
  clearLogs(jobId: string, keepLogs?: number): Promise<void>;
  updateData(jobId: string, dataJson: string): Promise<void>;
  getJobHash(jobId: string): Promise<RawJobHash | undefined>;

  /** Per-minute completed/failed counts written by workers with `metrics` (newest first). */
  getMetrics(type: 'completed' | 'failed', start: number, end: number): Promise<Metrics>;

  // deduplication
  /** The id of the job owning the deduplication window, if one is open. */
  getDeduplicationJobId(deduplicationId: string): Promise<string | undefined>;
  /** Ends the window whoever owns it; returns 1 if there was one. */
  removeDeduplicationKey(deduplicationId: string): Promise<number>;
  /** Ends the window only if `jobId` owns it; returns 1 if it did. */
  removeDeduplicationKeyOf(deduplicationId: string, jobId: string): Promise<number>;
}
