/**
 * The Worker's slot strategy (slot-strategy.ts): a slot runs one job, and its completion fetches
 * the next. With several slots free (a start, a burst after idling) one call takes a job for
 * each, up to maxFetchBatch, instead of one round trip per slot.
 */
import type { FetchResult, RawJobHash } from '../backend/queue-backend';
import { DEFAULTS } from '../defaults';
import { Job } from '../job/job';
import { keepRule } from '../job/keep-jobs';
import type { CompletionResult } from './completion-batcher';
import { signalReason, type RunningJob, type RunningJobSignals } from './running-jobs';
import type { JobOutcomes } from './job-outcomes';
import type { Processor } from './processor';
import type { SlotContext } from './slot-context';
import type { SlotEnd, SlotFetch, SlotStrategy } from './slot-strategy';

/** A job a fetch locked, with the token it was locked with. */
export type FetchedJob = Extract<FetchResult, { kind: 'job' }> & { token: string };

/**
 * A fetched job as an object literal of fixed shape: a spread (`{ ...job, token }`) gives an
 * object with its properties out of line, 40 bytes more per job held by its slot.
 */
function fetchedJob(job: { jobId: string; hash: RawJobHash }, token: string): FetchedJob {
  return { kind: 'job', jobId: job.jobId, hash: job.hash, token };
}

export class SingleJobStrategy<DataType, ReturnType, NameType extends string>
  implements SlotStrategy<FetchedJob>, RunningJobSignals
{
  constructor(
    private readonly ctx: SlotContext,
    private readonly outcomes: JobOutcomes<DataType, ReturnType, NameType>,
    private readonly processor: Processor<DataType, ReturnType, NameType>,
    /** bullmq's rule: a per-job AbortSignal (cancelJob) only for a processor that takes one. */
    private readonly processorTakesSignal: boolean,
  ) {}

  async fetch(token: string, freeSlots: number): Promise<SlotFetch<FetchedJob>> {
    const { backend } = this.ctx;
    if (freeSlots > 1) {
      const fetched = await backend.fetchJobBatch({
        identity: this.ctx.identity(token),
        batchSize: Math.min(freeSlots, DEFAULTS.worker.maxFetchBatch),
        maxBatchBytes: 0,
      });
      if (fetched.kind === 'none') return fetched;
      return { kind: 'work', works: fetched.jobs.map((job) => fetchedJob(job, token)) };
    }
    const result = await backend.fetchNextJob(this.ctx.identity(token));
    return result.kind === 'job' ? { kind: 'work', works: [fetchedJob(result, token)] } : result;
  }

  async giveBack(fetched: FetchedJob): Promise<void> {
    await this.ctx.backend.moveActiveJobToWait(fetched.jobId, fetched.token);
  }

  /** Runs one job and records its outcome; resolves with the next job when fetch-next got one. */
  run(fetched: FetchedJob): Promise<FetchedJob | undefined> {
    return new Promise((resolve, reject) => this.start(fetched, { next: resolve, failed: reject }));
  }

  /**
   * run() reporting to `slot`, as the slot loop calls it. No async frame stays suspended while
   * the processor runs, only one `then` on its promise (process below): at concurrency 10,000 a
   * suspended frame (generator, registers, promise, await closures: some 450 bytes) is heap
   * per in-flight job. The async methods here run before the processor starts or after it
   * settled.
   */
  start(fetched: FetchedJob, slot: SlotEnd<FetchedJob>): void {
    let job: Job<DataType, ReturnType, NameType> | undefined;
    let runningJob: RunningJob | undefined;
    try {
      job = this.jobOf(fetched);
      const refusal = this.outcomes.refusalOf(job);
      if (refusal) {
        this.refuse(job, refusal).then(slot.next, slot.failed);
        return;
      }
      runningJob = this.startRunning(job);
      if (this.ctx.gracefulDeadlinePassed()) {
        // Fetched by a completion sent before closeGracefully, arriving after its deadline.
        this.giveBackLate(job, runningJob).then(slot.next, slot.failed);
        return;
      }
      const announced = this.outcomes.announceActive(job);
      if (announced) this.processAfter(announced, job, runningJob, slot);
      else this.process(job, runningJob, slot);
    } catch (error) {
      if (job) this.release(job, runningJob);
      slot.failed(error);
    }
  }

  /** The Job of a fetched job, locked with its token; its span and metrics start here. */
  private jobOf(fetched: FetchedJob): Job<DataType, ReturnType, NameType> {
    const job = Job.fromHash<DataType, ReturnType, NameType>(
      this.ctx.scope,
      fetched.jobId,
      fetched.hash,
    );
    // The Job holds what it needs; nothing else keeps the raw hash.
    (fetched as { hash?: unknown }).hash = undefined;
    job.token = fetched.token;
    // Ended in release().
    this.ctx.attempts.start(job);
    return job;
  }

  /** The job runs here from now: its lock is renewed, it is in flight, it has its signal. */
  private startRunning(job: Job<DataType, ReturnType, NameType>): RunningJob {
    const { ctx } = this;
    const token = job.token!;
    ctx.lockRenewer.track(job.id, token);
    const runningJob = ctx.runningJobs.start(job.id, token, this);
    // bullmq's rule: a per-job AbortSignal (cancelJob) for a processor that takes one.
    if (this.processorTakesSignal && !ctx.abortSignal.aborted) {
      runningJob.controller = new AbortController();
    }
    // job.signal finds it through the worker's RUNNING_JOB_SIGNAL (worker-base.ts).
    return runningJob;
  }

  /**
   * The worker is done with the job: no more lock renewal, running-job record (nor signal) or
   * attempt.
   */
  private release(job: Job<DataType, ReturnType, NameType>, runningJob?: RunningJob): void {
    if (runningJob) this.ctx.endRunning(runningJob);
    this.ctx.attempts.end(job);
  }

  private async refuse(
    job: Job<DataType, ReturnType, NameType>,
    refusal: Error,
  ): Promise<undefined> {
    try {
      await this.outcomes.failJob(job, job.token!, refusal);
      return undefined;
    } finally {
      this.release(job);
    }
  }

  private async giveBackLate(
    job: Job<DataType, ReturnType, NameType>,
    runningJob: RunningJob,
  ): Promise<undefined> {
    try {
      await this.ctx.giveBack(runningJob);
      return undefined;
    } finally {
      this.release(job, runningJob);
    }
  }

  /** process() once the job's `active` work (its scheduler's next iteration) is done. */
  private processAfter(
    announced: Promise<void>,
    job: Job<DataType, ReturnType, NameType>,
    runningJob: RunningJob,
    slot: SlotEnd<FetchedJob>,
  ): void {
    announced.then(
      () => this.process(job, runningJob, slot),
      (error: unknown) => {
        this.release(job, runningJob);
        slot.failed(error);
      },
    );
  }

  /** Calls the processor; its outcome is recorded once its promise settles. */
  private process(
    job: Job<DataType, ReturnType, NameType>,
    runningJob: RunningJob,
    slot: SlotEnd<FetchedJob>,
  ): void {
    let running: Promise<ReturnType>;
    try {
      running = Promise.resolve(this.callProcessor(job, runningJob));
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (result) => void this.succeeded(job, runningJob, result).then(slot.next, slot.failed),
      (error: unknown) => void this.failed(job, runningJob, error).then(slot.next, slot.failed),
    );
  }

  private async succeeded(
    job: Job<DataType, ReturnType, NameType>,
    runningJob: RunningJob,
    result: ReturnType,
  ): Promise<FetchedJob | undefined> {
    try {
      if (this.outcomes.isGivenUp(runningJob)) return undefined;
      runningJob.phase = 'finishing';
      return await this.complete(job, job.token!, result, runningJob);
    } finally {
      this.release(job, runningJob);
    }
  }

  private async failed(
    job: Job<DataType, ReturnType, NameType>,
    runningJob: RunningJob,
    error: unknown,
  ): Promise<undefined> {
    try {
      if (this.outcomes.isGivenUp(runningJob, error)) return undefined;
      runningJob.phase = 'finishing';
      if (runningJob.cancel)
        await this.outcomes.failCancelled(job, job.token!, runningJob.cancel, error);
      else await this.outcomes.handleProcessorError(job, job.token!, error);
      return undefined;
    } finally {
      this.release(job, runningJob);
    }
  }

  /** The processor's promise, inside the attempt's span when tracing (no closure otherwise). */
  private callProcessor(
    job: Job<DataType, ReturnType, NameType>,
    runningJob: RunningJob,
  ): ReturnType | Promise<ReturnType> {
    const { processor } = this;
    const token = job.token!;
    const signal = this.processorSignal(runningJob);
    const span = this.ctx.attempts.of(job)?.span;
    return span ? span.run(() => processor(job, token, signal)) : processor(job, token, signal);
  }

  /**
   * The signal a job's processor gets: its own (made in begin(); worker.cancelJob aborts it, and
   * so does the worker's) when the processor takes one, else the worker's alone.
   */
  private processorSignal(runningJob: RunningJob): AbortSignal {
    return this.processorTakesSignal && runningJob.controller
      ? runningJob.controller.signal
      : this.ctx.abortSignal;
  }

  /**
   * `job.signal` (RunningJobSignals): the signal the processor got when it takes one; otherwise one
   * made on first use, so a processor of one parameter that watches job.signal is cancellable
   * too, while one that never reads it costs no AbortController per job.
   */
  signalOf(runningJob: RunningJob): AbortSignal {
    if (runningJob.controller) return runningJob.controller.signal;
    if (this.processorTakesSignal || this.ctx.abortSignal.aborted) return this.ctx.abortSignal;
    runningJob.controller = new AbortController();
    // A cancel request that came before the processor first looked.
    if (runningJob.cancel) runningJob.controller.abort(signalReason(runningJob.cancel.reason));
    return runningJob.controller.signal;
  }

  private async complete(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    result: ReturnType,
    runningJob: RunningJob,
  ): Promise<FetchedJob | undefined> {
    const { ctx, outcomes } = this;
    const serialised = outcomes.serialise(result);
    if ('error' in serialised) {
      await outcomes.failJob(job, token, serialised.error);
      return undefined;
    }
    const nextToken = ctx.nextToken();
    let outcome: CompletionResult;
    try {
      outcome = await ctx.completions.complete({
        jobId: job.id,
        token,
        value: serialised.value,
        keep: keepRule(job.opts.removeOnComplete, ctx.opts.removeOnComplete),
        attempts: job.opts.attempts ?? 0,
        fetchNext: ctx.fetchNextIdentity(nextToken),
      });
    } catch (error) {
      ctx.emitError(error);
      return undefined;
    }
    const { error, next } = outcome;
    if (error) {
      // A parent cannot complete while a child it depends on failed (or is still pending):
      // that is the job's failure, not an engine error.
      const failure = outcomes.failureOfRefusal(error);
      if (failure) await outcomes.failJob(job, token, failure);
    } else {
      outcomes.completed(job, result);
      if (runningJob.cancel) await outcomes.cancelIgnored(job);
    }
    // A next job fetched along with a refused completion is still this worker's to run.
    return this.acceptNext(next, next?.token ?? nextToken);
  }

  private acceptNext(next: FetchResult | undefined, token: string): FetchedJob | undefined {
    if (!next) return undefined;
    if (next.kind === 'job') return fetchedJob(next, token);
    this.ctx.rateLimit.limitFor(next.rateLimitTtl);
    return undefined;
  }
}
