/**
 * The BatchWorker's slot strategy (slot-strategy.ts): a slot runs one batch (up to batchSize
 * jobs within maxBatchBytes), and the call that completes it fetches the next. Every job keeps
 * its own lock, running-job record, events and failure handling (job-outcomes.ts).
 */
import type { BatchFetchRequest, BatchFetchResult } from '../backend/queue-backend';
import { Job, processingSignals } from '../job/job';
import { keepRule } from '../job/keep-jobs';
import type { JobSpan } from '../telemetry/job-tracer';
import type { CancelRequest } from './heartbeat-keys';
import type { RunningJob } from './running-jobs';
import type { JobOutcomes } from './job-outcomes';
import type { BatchProcessor } from './processor';
import type { SlotContext } from './slot-context';
import type { SlotFetch, SlotStrategy } from './slot-strategy';

/** The jobs one fetch locked, all with one token. */
export interface FetchedBatch {
  token: string;
  jobs: { jobId: string; hash: Record<string, string> }[];
}

export interface BatchLimits {
  batchSize: number;
  maxBatchBytes: number;
}

export class BatchStrategy<
  DataType,
  ReturnType,
  NameType extends string,
> implements SlotStrategy<FetchedBatch> {
  constructor(
    private readonly ctx: SlotContext,
    private readonly outcomes: JobOutcomes<DataType, ReturnType, NameType>,
    private readonly processor: BatchProcessor<DataType, ReturnType, NameType>,
    private readonly limits: BatchLimits,
  ) {}

  async giveBack(batch: FetchedBatch): Promise<void> {
    for (const { jobId } of batch.jobs) {
      await this.ctx.backend.moveActiveJobToWait(jobId, batch.token);
    }
  }

  /** One batch per fetch, whatever the number of free slots (each slot runs a batch). */
  async fetch(token: string): Promise<SlotFetch<FetchedBatch>> {
    return asSlotFetch(await this.ctx.backend.fetchJobBatch(this.request(token)), token);
  }

  /** Runs one batch and records every job's outcome; returns the next batch when one came. */
  async run(batch: FetchedBatch): Promise<FetchedBatch | undefined> {
    const { ctx } = this;
    const { token } = batch;
    const fetched = batch.jobs.map((entry) => {
      const job = Job.fromHash<DataType, ReturnType, NameType>(ctx.scope, entry.jobId, entry.hash);
      job.token = token;
      return job;
    });
    // One span for the batch, linked to every job's context; metrics per job.
    const { span } = ctx.attempts.startBatch(fetched);
    try {
      return await this.runJobs(fetched, token, span);
    } finally {
      for (const job of fetched) ctx.attempts.end(job);
      span?.end();
    }
  }

  private request(token: string): BatchFetchRequest {
    return { identity: this.ctx.identity(token), ...this.limits };
  }

  private async runJobs(
    fetched: Job<DataType, ReturnType, NameType>[],
    token: string,
    span: JobSpan | undefined,
  ): Promise<FetchedBatch | undefined> {
    const { ctx, outcomes } = this;
    const jobs: Job<DataType, ReturnType, NameType>[] = [];
    for (const job of fetched) {
      const refusal = outcomes.refusalOf(job);
      if (refusal) await outcomes.failJob(job, token, refusal);
      else jobs.push(job);
    }
    if (jobs.length === 0) return undefined;

    const runningJobs = jobs.map((job) => {
      ctx.lockRenewer.track(job.id, token);
      return ctx.runningJobs.start(job.id, token);
    });
    // job.signal of a batch's jobs: the signal the batch processor gets (the worker's).
    const batchSignal = () => ctx.abortSignal;
    for (const job of jobs) processingSignals.set(job, batchSignal);
    try {
      for (const job of jobs) await outcomes.announceActive(job);
      let results: (ReturnType | Error)[];
      try {
        const run = () => this.processor(jobs, token, ctx.abortSignal);
        results = await (span ? span.run(run) : run());
        if (!Array.isArray(results) || results.length !== jobs.length) {
          throw new Error(
            `BatchWorker processor must return an array of ${jobs.length} results, one per job`,
          );
        }
      } catch (error) {
        const owned = jobs.flatMap((job, index) => {
          const runningJob = runningJobs[index]!;
          return outcomes.isGivenUp(runningJob, error) ? [] : [{ job, cancel: runningJob.cancel }];
        });
        for (const runningJob of runningJobs)
          if (runningJob.phase === 'running') runningJob.phase = 'finishing';
        await Promise.all(
          owned.map(({ job, cancel }) =>
            cancel
              ? outcomes.failCancelled(job, token, cancel, error)
              : outcomes.handleProcessorError(job, token, error),
          ),
        );
        return undefined;
      }
      return await this.finish(jobs, runningJobs, results, token);
    } finally {
      for (const runningJob of runningJobs) ctx.endRunning(runningJob);
      for (const job of jobs) processingSignals.delete(job);
    }
  }

  /** Completes the successes in one call (fetching the next batch), then fails the failures. */
  private async finish(
    jobs: Job<DataType, ReturnType, NameType>[],
    runningJobs: RunningJob[],
    results: (ReturnType | Error)[],
    token: string,
  ): Promise<FetchedBatch | undefined> {
    const { ctx, outcomes } = this;
    const completing: {
      job: Job<DataType, ReturnType, NameType>;
      result: ReturnType;
      value: string;
      cancel?: CancelRequest;
    }[] = [];
    const failing: { job: Job<DataType, ReturnType, NameType>; error: Error }[] = [];
    const cancelled: {
      job: Job<DataType, ReturnType, NameType>;
      error: Error;
      cancel: CancelRequest;
    }[] = [];
    for (const [index, job] of jobs.entries()) {
      const runningJob = runningJobs[index]!;
      if (outcomes.isGivenUp(runningJob)) continue;
      runningJob.phase = 'finishing';
      const result = results[index]!;
      if (result instanceof Error) {
        // A job a cancel request reached fails as cancelled.
        if (runningJob.cancel) cancelled.push({ job, error: result, cancel: runningJob.cancel });
        else failing.push({ job, error: result });
        continue;
      }
      const serialised = outcomes.serialise(result);
      if ('error' in serialised) failing.push({ job, error: serialised.error });
      else completing.push({ job, result, value: serialised.value, cancel: runningJob.cancel });
    }

    const nextToken = ctx.nextToken();
    let next: BatchFetchResult | undefined;
    if (completing.length > 0) {
      const fetchNext = ctx.fetchNextIdentity(nextToken) ? this.request(nextToken) : undefined;
      let errors: (Error | undefined)[];
      try {
        ({ errors, next } = await ctx.backend.completeJobBatch({
          token,
          jobs: completing.map(({ job, value }) => ({
            jobId: job.id,
            value,
            keep: keepRule(job.opts.removeOnComplete, ctx.opts.removeOnComplete),
          })),
          metricsMaxDataPoints: ctx.opts.metrics?.maxDataPoints,
          fetchNext,
        }));
      } catch (error) {
        // The call itself failed (Redis away): the jobs stay active for the stalled checker.
        ctx.emitError(error);
        return undefined;
      }
      for (const [index, { job, result, cancel }] of completing.entries()) {
        const error = errors[index];
        if (!error) {
          outcomes.completed(job, result);
          if (cancel) await outcomes.cancelIgnored(job);
          continue;
        }
        const failure = outcomes.failureOfRefusal(error);
        if (failure) failing.push({ job, error: failure });
      }
    }
    await Promise.all([
      ...failing.map(({ job, error }) => outcomes.failJob(job, token, error)),
      ...cancelled.map(({ job, error, cancel }) =>
        outcomes.failCancelled(job, token, cancel, error),
      ),
    ]);
    return next ? this.acceptNext(next, nextToken) : undefined;
  }

  private acceptNext(next: BatchFetchResult, token: string): FetchedBatch | undefined {
    const slot = asSlotFetch(next, token);
    if (slot.kind === 'work') return slot.works[0];
    this.ctx.rateLimit.limitFor(slot.rateLimitTtl);
    return undefined;
  }
}

function asSlotFetch(result: BatchFetchResult, token: string): SlotFetch<FetchedBatch> {
  if (result.kind === 'none') return result;
  return { kind: 'work', works: [{ token, jobs: result.jobs }] };
}
