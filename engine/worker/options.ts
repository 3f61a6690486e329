import type { ForkOptions } from 'node:child_process';
import type { WorkerOptions as ThreadWorkerOptions } from 'node:worker_threads';
import type { BackoffStrategy } from '../job/backoff';
import type { KeepJobs } from '../job/options';
import type { QueueBaseOptions } from '../queue/options';

export interface RateLimiterOptions {
  /** Most job starts per window. */
  max: number;
  /** Window length in ms. */
  duration: number;
}

export interface WorkerOptions extends QueueBaseOptions {
  /** Jobs processed at once by this worker. */
  concurrency?: number;
  /** How long a job's lock lives without renewal (ms). */
  lockDuration?: number;
  /**
   * How often locks are renewed (ms); default lockDuration / 2. As in bullmq, a value at or past
   * lockDuration is accepted (the lock then lapses between renewals).
   */
  lockRenewTime?: number;
  /** How often active jobs are checked for lost locks (ms). */
  stalledInterval?: number;
  /** Stalls a job survives before it is failed. */
  maxStalledCount?: number;
  /** Seconds to block on an empty queue before polling again. */
  drainDelay?: number;
  limiter?: RateLimiterOptions;
  /** Written to processed jobs as `pb` and to the connection name, so consoles can show it. */
  name?: string;
  /** Start processing in the constructor (default true); otherwise call run(). */
  autorun?: boolean;
  removeOnComplete?: KeepJobs;
  removeOnFail?: KeepJobs;
  skipStalledCheck?: boolean;
  skipLockRenewal?: boolean;
  /**
   * OxMQ: how often (ms) the worker publishes its heartbeat record and reads the commands and
   * cancel requests left for it in Redis (default 5000; 0 turns heartbeats off, and with them
   * quiet / resume and queue.cancelJob for this worker's jobs).
   */
  heartbeatInterval?: number;
  /** Fail jobs that were started more than this many times. */
  maxStartedAttempts?: number;
  /** Longest wait (ms) when rate limited before fetching again. */
  maximumRateLimitDelay?: number;
  /**
   * Pause (ms) before the fetch loop tries again after a Redis error (default 1000; bullmq's is
   * 15000).
   */
  runRetryDelay?: number;
  /** Accepted for bullmq compatibility; a Worker always has its own blocking connection. */
  blockingConnection?: boolean;
  /** Accepted for bullmq compatibility; OxMQ checks no Redis version. */
  skipVersionCheck?: boolean;
  /** Accepted for bullmq compatibility; no effect. */
  skipWaitingForReady?: boolean;
  /** Per-minute completed/failed counts kept for getMetrics. */
  metrics?: { maxDataPoints: number };
  /**
   * OxMQ: the timing history (docs/metrics.md, "Timing history"): per minute, wait and run time
   * in fixed buckets and the outcomes, per queue and per job name, kept by every OxMQ worker
   * whatever `metrics` says and read by the console. On by default; `false` turns it off.
   */
  timingHistory?: boolean | TimingHistoryOptions;
  settings?: { backoffStrategy?: BackoffStrategy };
  /**
   * Sandboxed processors only (the processor is a file): run jobs in worker threads instead of
   * child processes (default false).
   */
  useWorkerThreads?: boolean;
  /**
   * Passed on to `child_process.fork` for sandbox children (env, cwd, a heap limit in execArgv,
   * ...). OxMQ keeps its own IPC, stdio and module loader: `execArgv` is added after its own.
   */
  workerForkOptions?: ForkOptions;
  /** Passed on to `new Worker` for sandbox threads (resourceLimits, env, ...), likewise. */
  workerThreadsOptions?: ThreadWorkerOptions;
}

export interface TimingHistoryOptions {
  /** How often (ms) the counts gathered in memory are written (default 5000). */
  flushInterval?: number;
  /** How long minute-resolution history is kept after its hour (ms, default one day). */
  minutesKept?: number;
  /** How long hour-resolution history is kept after its day (ms, default 30 days). */
  hoursKept?: number;
}
