/**
 * How a worker records what became of a job it ran, the same for a Worker and a BatchWorker:
 * refusals before it runs, the processor's signals (moved, delay, rate limit), failed attempts
 * (retried or failed for good) and completions. A Redis refusal of a finishing call is reported
 * as an error event: the job stays where the stalled logic put it.
 */
import {
  FailedChildrenError,
  JobCancelledError,
  PendingDependenciesError,
  UnrecoverableError,
} from '../errors';
import type { CancelOutcome } from '../backend/queue-backend';
import { movedByProcessor, type Job } from '../job/job';
import { keepRule } from '../job/keep-jobs';
import { SandboxAbortedError } from '../sandbox/errors';
import { ATTR, SPAN_EVENT } from '../telemetry/semconv';
import { planFailure } from './failure-plan';
import type { CancelRequest } from './heartbeat-keys';
import type { RunningJob } from './running-jobs';
import { classifyThrown, unmovedSignalError } from './processor-signals';
import type { SlotContext } from './slot-context';

export class JobOutcomes<DataType, ReturnType, NameType extends string> {
  constructor(private readonly ctx: SlotContext) {}

  /** Why a fetched job must fail before it runs, if it must. */
  refusalOf(job: Job<DataType, ReturnType, NameType>): Error | undefined {
    if (job.deferredFailure) return new UnrecoverableError(job.deferredFailure);
    const max = this.ctx.opts.maxStartedAttempts;
    if (max !== undefined && job.attemptsStarted > max) {
      return new UnrecoverableError('job started more than allowable limit');
    }
    return undefined;
  }

  /**
   * The job starts: its `active` event, and the next iteration of its job scheduler if any.
   * Returns a promise only when there is something to wait for (a scheduler's job), so the
   * common job starts its processor without one.
   */
  announceActive(job: Job<DataType, ReturnType, NameType>): Promise<void> | undefined {
    this.ctx.emit('active', job, 'waiting');
    if (!job.repeatJobKey) return undefined;
    return this.ctx.scheduler
      .createNextIteration(job)
      .then(undefined, (error: unknown) => this.ctx.emitError(error));
  }

  /**
   * True when the worker no longer owns the outcome of this job: closeGracefully gave it back
   * to wait (a late result would only fail on the released lock), or close(true) killed its
   * sandbox child (the job stays active for the stalled checker, as with in-process jobs).
   */
  isGivenUp(runningJob: RunningJob, error?: unknown): boolean {
    if (runningJob.phase === 'returned') return true;
    return error instanceof SandboxAbortedError && this.ctx.abortSignal.aborted;
  }

  /** The return value as stored (JSON), or the failure a value JSON cannot hold is. */
  serialise(result: ReturnType): { value: string } | { error: Error } {
    try {
      return { value: JSON.stringify(result) ?? 'null' };
    } catch (error) {
      return {
        error: new UnrecoverableError(
          `Return value is not JSON-serialisable: ${(error as Error).message}`,
        ),
      };
    }
  }

  /**
   * The failure a completion Redis refused is for the job (a parent whose child failed or is
   * still pending), or undefined when the refusal is an engine error (reported here).
   */
  failureOfRefusal(error: Error): Error | undefined {
    if (error instanceof FailedChildrenError) return new UnrecoverableError(error.message);
    if (error instanceof PendingDependenciesError) return error;
    this.ctx.emitError(error);
    return undefined;
  }

  /** The job completed with `result`, as Redis recorded it. */
  completed(job: Job<DataType, ReturnType, NameType>, result: ReturnType): void {
    job.returnvalue = result;
    job.finishedOn = Date.now();
    job.attemptsMade += 1;
    this.ctx.attempts.of(job)?.completed();
    this.ctx.emit('completed', job, result, 'active');
  }

  /**
   * Runs a finishing call; a Redis refusal (lock lost, job removed meanwhile) is reported as an
   * error event and returns null.
   */
  private async recordOutcome<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      this.ctx.emitError(error);
      return null;
    }
  }

  /** What the processor threw: a signal it sent (moved, delay, rate limit) or a failure. */
  async handleProcessorError(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    thrown: unknown,
  ): Promise<void> {
    const { backend, attempts, rateLimit } = this.ctx;
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const signal = classifyThrown(error);
    if (signal.kind === 'self-moved') {
      if (await this.wasMovedByProcessor(job, token)) {
        attempts.of(job)?.moved(...signal.outcome);
        return;
      }
      await this.failJob(job, token, unmovedSignalError(signal));
      return;
    }
    if (signal.kind === 'delay') {
      const moved = await this.recordOutcome(async () => {
        await backend.postponeJob(job.id, token, signal.until);
        return true;
      });
      if (moved) {
        job.delay = Math.max(0, signal.until - Date.now());
        attempts.of(job)?.moved('delayed', SPAN_EVENT.delayed);
      }
      return;
    }
    if (signal.kind === 'rate-limit') {
      const ttl = await this.recordOutcome(() => backend.moveActiveJobToWait(job.id, token));
      if (ttl) rateLimit.limitFor(ttl);
      attempts
        .of(job)
        ?.moved('rate-limited', SPAN_EVENT.rateLimited, { [ATTR.rateLimitTtl]: ttl ?? 0 });
      return;
    }
    await this.failJob(job, token, error);
  }

  /**
   * The processor of a job a cancel request reached settled with an error (its own, or the crash
   * of the sandbox child a force stop killed): the attempt fails as cancelled, for good, whatever
   * attempts remain, and the timeline says how. Only a processor that moved its job itself
   * before throwing keeps that move (the job is no longer this worker's to fail).
   */
  async failCancelled(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    cancel: CancelRequest,
    thrown: unknown,
  ): Promise<void> {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const signal = classifyThrown(error);
    if (signal.kind === 'self-moved' && (await this.wasMovedByProcessor(job, token))) {
      this.ctx.attempts.of(job)?.moved(...signal.outcome);
      return;
    }
    const failure = new JobCancelledError(cancel.reason, cancel.force, { cause: error });
    // The trace shows where the processor stopped, not where the worker built this error.
    if (error.stack) failure.stack = error.stack;
    if (await this.failJob(job, token, failure)) {
      await this.noteCancelOutcome(job, cancel.force ? 'force-stopped' : 'stopped');
    }
  }

  /** A job completed although a cancel request reached it: its timeline says so. */
  cancelIgnored(job: Job<DataType, ReturnType, NameType>): Promise<void> {
    return this.noteCancelOutcome(job, 'completed-anyway');
  }

  private async noteCancelOutcome(
    job: Job<DataType, ReturnType, NameType>,
    outcome: CancelOutcome,
  ): Promise<void> {
    try {
      await this.ctx.backend.noteCancelOutcome(job.id, outcome);
    } catch (error) {
      this.ctx.emitError(error);
    }
  }

  /**
   * Whether the job left active before its processor threw a "moved" signal: known at once when
   * the move went through this Job, else (a sandboxed processor's move) read from the lock, which
   * every move releases. A job whose lock is still ours was not moved.
   */
  private async wasMovedByProcessor(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
  ): Promise<boolean> {
    if (movedByProcessor.has(job)) return true;
    return !(await this.ctx.backend.holdsLock(job.id, token));
  }

  /**
   * A failed attempt: retry (now or after backoff) while attempts remain, else fail for good.
   * False when Redis refused to record it (reported as an error event).
   */
  async failJob(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    error: Error,
  ): Promise<boolean> {
    const { backend, opts, attempts } = this.ctx;
    const { delay, fields, stacktrace, attemptsMade } = await planFailure(
      job,
      error,
      opts.settings?.backoffStrategy,
    );
    const outcome =
      delay >= 0
        ? await this.recordOutcome(() =>
            backend.retryJob({ jobId: job.id, token, delay, lifo: job.opts.lifo === true, fields }),
          )
        : await this.recordOutcome(() =>
            backend.finishJob({
              jobId: job.id,
              token,
              outcome: 'failed',
              value: fields.failedReason,
              keep: keepRule(job.opts.removeOnFail, opts.removeOnFail),
              attempts: job.opts.attempts ?? 0,
              fields,
              metricsMaxDataPoints: opts.metrics?.maxDataPoints,
            }),
          );
    if (outcome === null) {
      attempts.of(job)?.unrecorded(error);
      return false;
    }
    attempts.of(job)?.failed(error, delay, attemptsMade);
    job.attemptsMade = attemptsMade;
    job.failedReason = fields.failedReason;
    job.stacktrace = stacktrace;
    if (delay < 0) job.finishedOn = Date.now();
    // The retry's backoff, as the hash now holds it.
    if (delay > 0) job.delay = delay;
    this.ctx.emit('failed', job, error, 'active');
    return true;
  }
}
