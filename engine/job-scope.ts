import type { EventEmitter } from 'node:events';
import type { FetchIdentity, QueueBackend } from './backend/queue-backend';
import type { QueueOperations } from './backend/queue-operations';
import type { BackoffStrategy } from './backoff';
import type { KeepJobs } from './job-options';

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
}
