import type { EventEmitter } from 'node:events';
import type { FetchIdentity, QueueBackend } from '../backend/queue-backend';
import type { QueueOperations } from '../backend/queue-operations';
import type { BackoffStrategy } from './backoff';
import type { KeepJobs } from './options';

/**
 * What a Job finishing itself (manual processing: job.moveToCompleted / moveToFailed) takes from
 * the Worker that fetched it: the worker's keep rules and backoff strategy, and the identity a
 * fetch-next carries. A Job read through a Queue has none and finishes with its own options.
 */
export interface JobFinishingContext {
  readonly removeOnComplete?: KeepJobs;
  readonly removeOnFail?: KeepJobs;
  readonly metricsMaxDataPoints?: number;
  readonly backoffStrategy?: BackoffStrategy;
  /** The identity for fetching the next job with `token`; undefined when the worker must not. */
  fetchIdentity(token: string): FetchIdentity | undefined;
}

/**
 * The key of a Worker's lookup of `job.signal` for the jobs it runs one at a time: the job's
 * in-flight record holds it, so a running job needs no entry of its own for it (at concurrency
 * 10,000 that is heap per job). A symbol, so it widens no public API.
 */
export const RUNNING_JOB_SIGNAL: unique symbol = Symbol('oxmq.runningJobSignal');

/** What a Job needs from the Queue or Worker that produced it. */
export interface JobScope {
  readonly name: string;
  readonly prefix: string;
  readonly backend: QueueBackend;
  readonly ops: QueueOperations;
  /** Receives local `progress` events (the Worker, when the job is being processed). */
  readonly emitter?: EventEmitter;
  /** Set by a Worker (see JobFinishingContext). */
  readonly finishing?: JobFinishingContext;
  /** Set by a Worker: the signal of its running job `jobId` fetched with `token`, if any. */
  readonly [RUNNING_JOB_SIGNAL]?: (
    jobId: string,
    token: string | undefined,
  ) => AbortSignal | undefined;
}
