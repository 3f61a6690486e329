/**
 * What the slot strategies (single-job-strategy.ts, batch-strategy.ts) and the job outcomes
 * (job-outcomes.ts) use of the worker that runs them: its backend, its bookkeeping of running
 * jobs, its events and its closing state. Built once by the worker (worker-base.ts).
 */
import type { FetchIdentity } from '../backend/queue-backend';
import type { QueueBackend } from '../backend/queue-backend';
import type { JobScope } from '../job/scope';
import type { JobScheduler } from '../scheduler/job-scheduler';
import type { QueueKeys } from '../queue/keys';
import type { LockRenewer } from '../maintenance/lock-renewer';
import type { JobAttempts } from '../telemetry/job-attempts';
import type { WorkerOptions } from './options';
import type { CompletionBatcher } from './completion-batcher';
import type { RunningJob, RunningJobs } from './running-jobs';
import type { RateLimitGate } from './rate-limit-gate';

export interface SlotContext {
  /** What the jobs a worker builds belong to (the worker itself). */
  readonly scope: JobScope;
  readonly backend: QueueBackend;
  readonly keys: QueueKeys;
  readonly opts: WorkerOptions;
  /** Spans and metrics of the attempts the worker runs (engine/telemetry/). */
  readonly attempts: JobAttempts;
  readonly lockRenewer: LockRenewer;
  readonly runningJobs: RunningJobs;
  readonly scheduler: JobScheduler;
  readonly rateLimit: RateLimitGate;
  readonly completions: CompletionBatcher;
  /** The worker's signal: close(true) and closeGracefully's deadline abort it. */
  readonly abortSignal: AbortSignal;
  emit(event: string, ...args: unknown[]): void;
  emitError(error: unknown): void;
  nextToken(): string;
  identity(token: string): FetchIdentity;
  /** The identity a finishing call fetches the next work with, or undefined for none. */
  fetchNextIdentity(token: string): FetchIdentity | undefined;
  /** True once closeGracefully's deadline has passed. */
  gracefulDeadlinePassed(): boolean;
  /** Puts a running job back to wait (closeGracefully's deadline); see worker-base.ts. */
  giveBack(runningJob: RunningJob): Promise<void>;
  /**
   * The worker is done with a running job: its lock is no longer renewed, closeGracefully counts
   * it.
   */
  endRunning(runningJob: RunningJob): void;
}
