/**
 * closeGracefully (an OxMQ addition) and the part of closing that decides how long to wait for
 * running jobs: until they finish, until close(true), or until closeGracefully's deadline, when
 * the jobs whose processor still runs go back to wait (lock released, no attempt counted) and
 * the ones whose outcome is being written are let finish.
 */
import type { QueueBackend } from '../backend/queue-backend';
import type { LockRenewer } from '../maintenance/lock-renewer';
import { Deadline } from './deadline';
import type { RunningJob, RunningJobs } from './running-jobs';

/** What closeGracefully did with the jobs that were running. */
export interface GracefulCloseReport {
  /** Jobs that finished (completed, failed or were retried) before the deadline. */
  completedInTime: number;
  /** Ids of the jobs given back to wait at the deadline (lock released, no attempt counted). */
  returnedToWait: string[];
}

interface GracefulRun {
  deadline: Deadline;
  /** Jobs finished since closeGracefully was called. */
  completedInTime: number;
  /** Jobs given back to wait, as the moves succeed. */
  returnedToWait: string[];
  report?: Promise<GracefulCloseReport>;
}

export interface GracefulCloseDeps {
  backend: QueueBackend;
  /** Resolves once storage cannot be reached: every wait on it ends (calls would never return). */
  lost(): Promise<void>;
  runningJobs: RunningJobs;
  lockRenewer: LockRenewer;
  /** The worker's signal: aborted at the deadline (processors see it, sandbox children die). */
  abort: AbortController;
  emitError(error: unknown): void;
}

export class GracefulClose {
  private run?: GracefulRun;
  private readonly stopWaiting: { promise: Promise<void>; resolve: () => void };

  constructor(private readonly deps: GracefulCloseDeps) {
    let resolve!: () => void;
    const promise = new Promise<void>((res) => (resolve = res));
    this.stopWaiting = { promise, resolve };
  }

  /** Resolves when closing must stop waiting for running jobs (close(true), a passed deadline). */
  get stopWaitingForJobs(): Promise<void> {
    return this.stopWaiting.promise;
  }

  /** close(true): stop waiting for running jobs now. */
  forceNow(): void {
    this.stopWaiting.resolve();
  }

  deadlinePassed(): boolean {
    return this.run?.deadline.hasPassed() === true;
  }

  /** A job finished (not given back): counted when closeGracefully is under way. */
  jobFinished(): void {
    if (this.run) this.run.completedInTime += 1;
  }

  /**
   * Starts closeGracefully with `close` (the worker's close()), or brings the deadline of the
   * one under way forward. Every call resolves with the same report.
   */
  start(timeoutMs: number, close: () => Promise<void>): Promise<GracefulCloseReport> {
    if (this.run?.report) {
      this.run.deadline.shorten(timeoutMs);
      return this.run.report;
    }
    const run: GracefulRun = {
      deadline: new Deadline(timeoutMs),
      completedInTime: 0,
      returnedToWait: [],
    };
    this.run = run;
    run.report = this.closeWithDeadline(run, close());
    return run.report;
  }

  private async closeWithDeadline(
    run: GracefulRun,
    closed: Promise<void>,
  ): Promise<GracefulCloseReport> {
    const first = await Promise.race([
      closed.then(() => 'closed' as const),
      run.deadline.reached.then(() => 'deadline' as const),
    ]);
    if (first === 'deadline') await this.giveBackRunningJobs();
    else run.deadline.cancel();
    await closed;
    return { completedInTime: run.completedInTime, returnedToWait: [...run.returnedToWait] };
  }

  /**
   * The deadline passed: jobs whose processor still runs go back to wait; jobs whose outcome is
   * being written are let finish. Then closing stops waiting for jobs.
   */
  private async giveBackRunningJobs(): Promise<void> {
    const { runningJobs, abort, lost } = this.deps;
    // Marked before the signal fires, so a processor rejecting on abort is not failed for it.
    const moves = runningJobs.inPhase('running').map((runningJob) => this.giveBack(runningJob));
    // In-process processors see the signal; sandboxed ones have their child killed.
    abort.abort();
    const finishing = runningJobs
      .inPhase('finishing')
      .map((runningJob) => runningJobs.whenDone(runningJob));
    // With Redis down these calls never return: give up on them rather than hang.
    await Promise.race([Promise.all([...moves, ...finishing]), lost()]);
    this.stopWaiting.resolve();
  }

  /**
   * Puts a running job back at the front of wait (lock released, out of the stalled set, no
   * attempt counted), the path the rate limiter uses; whatever its processor does next is
   * ignored. A refusal (the lock was lost meanwhile) is reported as an error.
   */
  giveBack(runningJob: RunningJob): Promise<void> {
    runningJob.phase = 'returned';
    this.deps.lockRenewer.untrack(runningJob.jobId);
    return this.deps.backend.moveActiveJobToWait(runningJob.jobId, runningJob.token).then(
      () => void this.run?.returnedToWait.push(runningJob.jobId),
      (error: unknown) => this.deps.emitError(error),
    );
  }
}
