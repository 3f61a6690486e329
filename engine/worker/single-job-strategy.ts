/**
 * The Worker's slot strategy (slot-strategy.ts): a slot runs one job, and its completion fetches
 * the next. With several slots free (a start, a burst after idling) one call takes a job for
 * each, up to maxFetchBatch, instead of one round trip per slot.
 */
import type { FetchResult } from '../backend/queue-backend';
import { DEFAULTS } from '../defaults';
import { Job, processingSignals } from '../job';
import { keepRule } from '../keep-jobs';
import type { CompletionResult } from './completion-batcher';
import type { Flight } from './in-flight';
import type { JobOutcomes } from './job-outcomes';
import type { Processor } from './processor';
import type { SlotContext } from './slot-context';
import type { SlotFetch, SlotStrategy } from './slot-strategy';

/** A job a fetch locked, with the token it was locked with. */
export type FetchedJob = Extract<FetchResult, { kind: 'job' }> & { token: string };

export class SingleJobStrategy<
  DataType,
  ReturnType,
  NameType extends string,
> implements SlotStrategy<FetchedJob> {
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
      return {
        kind: 'work',
        works: fetched.jobs.map((job) => ({ kind: 'job' as const, ...job, token })),
      };
    }
    const result = await backend.fetchNextJob(this.ctx.identity(token));
    return result.kind === 'job' ? { kind: 'work', works: [{ ...result, token }] } : result;
  }

  async giveBack(fetched: FetchedJob): Promise<void> {
    await this.ctx.backend.moveActiveJobToWait(fetched.jobId, fetched.token);
  }

  /** Runs one job and records its outcome; returns the next job when fetch-next got one. */
  async run(fetched: FetchedJob): Promise<FetchedJob | undefined> {
    const { ctx, outcomes } = this;
    const job = Job.fromHash<DataType, ReturnType, NameType>(
      ctx.scope,
      fetched.jobId,
      fetched.hash,
    );
    // The Job holds what it needs; the raw hash would otherwise live as long as the slot's
    // reference to `fetched` (the whole run): at concurrency 10,000 that is heap per job.
    (fetched as { hash?: unknown }).hash = undefined;
    const token = fetched.token;
    job.token = token;
    // Its span and metrics, ended in the finally below (one async frame per job: at concurrency
    // 10,000 a second suspended frame would be heap per in-flight job).
    const attempt = ctx.attempts.start(job);
    try {
      const refusal = outcomes.refusalOf(job);
      if (refusal) {
        await outcomes.failJob(job, token, refusal);
        return undefined;
      }

      ctx.lockRenewer.track(job.id, token);
      const flight = ctx.inFlight.start(job.id, token);
      const signal = this.signalFor(flight);
      processingSignals.set(job, () => this.jobSignal(flight, signal));
      if (ctx.gracefulDeadlinePassed()) {
        // Fetched by a completion sent before closeGracefully, arriving after its deadline.
        await ctx.giveBack(flight).finally(() => ctx.inFlight.end(flight));
        return undefined;
      }
      await outcomes.announceActive(job);
      try {
        let result: ReturnType;
        try {
          // Inside the attempt's span when tracing (no closure per job otherwise).
          const { processor } = this;
          result = await (attempt.span
            ? attempt.span.run(() => processor(job, token, signal))
            : processor(job, token, signal));
        } catch (error) {
          if (outcomes.isGivenUp(flight, error)) return undefined;
          flight.phase = 'finishing';
          await outcomes.handleProcessorError(job, token, error);
          return undefined;
        }
        if (outcomes.isGivenUp(flight)) return undefined;
        flight.phase = 'finishing';
        return await this.complete(job, token, result);
      } finally {
        ctx.endFlight(flight);
      }
    } finally {
      processingSignals.delete(job);
      ctx.attempts.end(job);
    }
  }

  /**
   * The signal a job's processor gets: its own (worker.cancelJob aborts it, and so does the
   * worker's) when the processor takes one, else the worker's alone, with no object per job.
   */
  private signalFor(flight: Flight): AbortSignal {
    const workerSignal = this.ctx.abortSignal;
    if (!this.processorTakesSignal || workerSignal.aborted) return workerSignal;
    flight.controller = new AbortController();
    return flight.controller.signal;
  }

  /**
   * `job.signal`: the signal the processor got when it takes one; otherwise one made on first
   * use, so a processor of one parameter that watches job.signal is cancellable too, while one
   * that never reads it costs no AbortController per job.
   */
  private jobSignal(flight: Flight, given: AbortSignal): AbortSignal {
    if (flight.controller) return flight.controller.signal;
    if (this.processorTakesSignal || this.ctx.abortSignal.aborted) return given;
    flight.controller = new AbortController();
    return flight.controller.signal;
  }

  private async complete(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    result: ReturnType,
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
    }
    // A next job fetched along with a refused completion is still this worker's to run.
    return this.acceptNext(next, next?.token ?? nextToken);
  }

  private acceptNext(next: FetchResult | undefined, token: string): FetchedJob | undefined {
    if (!next) return undefined;
    if (next.kind === 'job') return { ...next, token };
    this.ctx.rateLimit.limitFor(next.rateLimitTtl);
    return undefined;
  }
}
