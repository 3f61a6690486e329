/**
 * The jobs a Worker is running, with how far each has got. closeGracefully needs the cut this
 * gives: a job whose processor has not returned by the deadline goes back to wait and its late
 * result is ignored; a job whose outcome is being written is left to finish.
 *
 * Kept small on purpose: a worker with concurrency 10,000 holds one RunningJob per running job, so
 * the record is a plain object and its "done" promise is only made when closeGracefully asks.
 */
import type { CancelRequest } from './heartbeat-keys';

export type RunningJobPhase =
  /** The processor runs. */
  | 'running'
  /** The processor returned; the outcome is being written. */
  | 'finishing'
  /** Given back to wait by closeGracefully: whatever the processor does now is ignored. */
  | 'returned';

/** Where a running job's `job.signal` comes from (the slot strategy that runs it). */
export interface RunningJobSignals {
  signalOf(runningJob: RunningJob): AbortSignal;
}

export class RunningJob {
  phase: RunningJobPhase = 'running';
  // The two fields below are set on rare paths only (closeGracefully, a signal asked for), so
  // they are declared, not defined: an instance without them is 16 bytes smaller.
  /** Set by whenDone(): called once the Worker is done with the job. */
  declare onDone?: () => void;
  /**
   * The job's own abort signal source, made only for a processor that takes a signal (bullmq's
   * rule: a third parameter, or a sandboxed processor) or that reads `job.signal` (made then):
   * worker.cancelJob aborts it.
   */
  declare controller?: AbortController;
  /**
   * Set when a cancel request through Redis reached the job (queue.cancelJob, the console):
   * however its processor gives up, the attempt ends as cancelled, not retried.
   */
  declare cancel?: CancelRequest;

  constructor(
    readonly jobId: string,
    readonly token: string,
    private readonly signals?: RunningJobSignals,
  ) {}

  /** `job.signal` while the job runs (the worker's RUNNING_JOB_SIGNAL looks it up here). */
  jobSignal(): AbortSignal | undefined {
    return this.signals ? this.signals.signalOf(this) : this.controller?.signal;
  }
}

export class RunningJobs {
  /** By job id: the jobs of one batch share a token. */
  private readonly jobs = new Map<string, RunningJob>();

  start(jobId: string, token: string, signals?: RunningJobSignals): RunningJob {
    const runningJob = new RunningJob(jobId, token, signals);
    this.jobs.set(jobId, runningJob);
    return runningJob;
  }

  end(runningJob: RunningJob): void {
    if (this.jobs.get(runningJob.jobId) !== runningJob) return;
    this.jobs.delete(runningJob.jobId);
    runningJob.onDone?.();
  }

  /** The record of a running job, if any. */
  get(jobId: string): RunningJob | undefined {
    return this.jobs.get(jobId);
  }

  /** Resolves once the Worker is done with the job (outcome written or given up). */
  whenDone(runningJob: RunningJob): Promise<void> {
    if (this.jobs.get(runningJob.jobId) !== runningJob) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = runningJob.onDone;
      runningJob.onDone = () => {
        previous?.();
        resolve();
      };
    });
  }

  /**
   * Aborts the signal of a running job (worker.cancelJob); false when the job is not running
   * here or its processor takes no signal (and has not read job.signal). What the job becomes is up to its processor: a
   * rejection is an ordinary failed attempt, a return completes it.
   */
  cancel(jobId: string, reason?: unknown): boolean {
    const controller = this.jobs.get(jobId)?.controller;
    if (!controller) return false;
    controller.abort(reason);
    return true;
  }

  /**
   * A cancel request through Redis for a running job: marks its record (the attempt then ends as
   * cancelled) and aborts its signal with the reason, as cancelJob would. A second request keeps
   * the first's reason and may add `force`. Undefined when the job does not run here, or is
   * already being finished.
   */
  requestCancel(jobId: string, request: CancelRequest): RunningJob | undefined {
    const runningJob = this.jobs.get(jobId);
    if (!runningJob || runningJob.phase !== 'running') return undefined;
    runningJob.cancel = {
      reason: runningJob.cancel?.reason ?? request.reason,
      force: runningJob.cancel?.force === true || request.force,
    };
    runningJob.controller?.abort(signalReason(runningJob.cancel.reason));
    return runningJob;
  }

  /** Aborts the signal of every running job that has one. */
  cancelAll(reason?: unknown): void {
    for (const runningJob of this.jobs.values()) runningJob.controller?.abort(reason);
  }

  /** Ids of the jobs in flight, at most `limit` of them. */
  ids(limit: number): string[] {
    const ids: string[] = [];
    for (const jobId of this.jobs.keys()) {
      if (ids.length >= limit) break;
      ids.push(jobId);
    }
    return ids;
  }

  inPhase(phase: RunningJobPhase): RunningJob[] {
    return [...this.jobs.values()].filter((runningJob) => runningJob.phase === phase);
  }

  get size(): number {
    return this.jobs.size;
  }
}

/** The reason a job's signal aborts with: the cancel's, or the default AbortError for none. */
export function signalReason(reason: string): string | undefined {
  return reason === '' ? undefined : reason;
}
