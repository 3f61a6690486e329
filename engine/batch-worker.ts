/**
 * BatchWorker (an OxMQ addition): processes jobs in batches, for work that is cheaper in bulk
 * (database ingestion, bulk APIs). One Redis call moves up to `batchSize` jobs to active,
 * stopping before the sum of their data sizes passes `maxBatchBytes` (a single job larger than
 * the budget still comes, alone); one call completes the batch and fetches the next.
 *
 * The processor gets the batch's jobs and returns one entry per job, in order: the job's return
 * value, or an Error to fail that job alone (it is retried per its attempts and backoff like a
 * job of a Worker). Throwing fails every job of the batch, each with its own retries. Every job
 * keeps its own lock (renewed together), stalled recovery, events, priorities, delays, groups
 * and rate limits: a rate limit counts every job of a batch.
 */
import { Job, processingSignals } from './job';
import { keepRule } from './keep-jobs';
import {
  ValidationError,
  FailedChildrenError,
  PendingDependenciesError,
  UnrecoverableError,
} from './errors';
import type { BatchFetchRequest, BatchFetchResult } from './backend/queue-backend';
import type { Flight } from './worker/in-flight';
import type { JobSpan } from './telemetry/job-tracer';
import { Worker, type SlotFetch } from './worker';
import type { WorkerOptions } from './worker-options';

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export type BatchProcessor<DataType = any, ReturnType = any, NameType extends string = string> = (
  jobs: Job<DataType, ReturnType, NameType>[],
  token?: string,
  signal?: AbortSignal,
) => Promise<(ReturnType | Error)[]>;
/* eslint-enable @typescript-eslint/no-explicit-any */

export interface BatchWorkerOptions extends WorkerOptions {
  /** Most jobs in one batch (default 100). */
  batchSize?: number;
  /**
   * Byte budget of a batch: the sum of its jobs' `data` sizes (JSON bytes) stays at or under it,
   * except that a batch's first job always comes (default: no budget).
   */
  maxBatchBytes?: number;
}

export const BATCH_DEFAULTS = { batchSize: 100, maxBatchBytes: 0 } as const;

interface FetchedBatch {
  token: string;
  jobs: { jobId: string; hash: Record<string, string> }[];
}

function validateBatchOptions(opts: BatchWorkerOptions): void {
  if (
    opts.batchSize !== undefined &&
    (!Number.isInteger(opts.batchSize) || opts.batchSize < 1 || opts.batchSize > 10_000)
  ) {
    throw new ValidationError('batchSize must be an integer from 1 to 10000');
  }
  if (
    opts.maxBatchBytes !== undefined &&
    (!Number.isSafeInteger(opts.maxBatchBytes) || opts.maxBatchBytes < 0)
  ) {
    throw new ValidationError('maxBatchBytes must be a whole number of bytes (0: no budget)');
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export class BatchWorker<
  DataType = any,
  ReturnType = any,
  NameType extends string = string,
> extends Worker<DataType, ReturnType, NameType> {
  static override readonly extraOptionKeys: readonly string[] = ['batchSize', 'maxBatchBytes'];

  /* eslint-enable @typescript-eslint/no-explicit-any */
  readonly batchSize: number;
  readonly maxBatchBytes: number;

  constructor(
    name: string,
    private readonly batchProcessor: BatchProcessor<DataType, ReturnType, NameType>,
    override readonly opts: BatchWorkerOptions,
  ) {
    if (typeof batchProcessor !== 'function') {
      throw new ValidationError('BatchWorker needs a processor function (jobs) => results');
    }
    validateBatchOptions(opts ?? {});
    super(
      name,
      () => {
        throw new Error('BatchWorker runs batches, never single jobs');
      },
      opts,
    );
    this.batchSize = opts.batchSize ?? BATCH_DEFAULTS.batchSize;
    this.maxBatchBytes = opts.maxBatchBytes ?? BATCH_DEFAULTS.maxBatchBytes;
  }

  private batchRequest(token: string): BatchFetchRequest {
    return {
      identity: this.identity(token),
      batchSize: this.batchSize,
      maxBatchBytes: this.maxBatchBytes,
    };
  }

  /** One batch per fetch, whatever the number of free slots (each slot runs a batch). */
  protected override async fetchWork(token: string): Promise<SlotFetch> {
    return asSlotFetch(await this.backend.fetchJobBatch(this.batchRequest(token)), token);
  }

  protected override runWork(work: unknown): Promise<unknown> {
    return this.processBatch(work as FetchedBatch);
  }

  /** Runs one batch and records every job's outcome; returns the next batch when one came. */
  private async processBatch(batch: FetchedBatch): Promise<FetchedBatch | undefined> {
    const { token } = batch;
    const fetched = batch.jobs.map((entry) => {
      const job = Job.fromHash<DataType, ReturnType, NameType>(this, entry.jobId, entry.hash);
      job.token = token;
      return job;
    });
    // One span for the batch, linked to every job's context; metrics per job.
    const { span } = this.attempts.startBatch(fetched);
    try {
      return await this.runBatch(fetched, token, span);
    } finally {
      for (const job of fetched) this.attempts.end(job);
      span?.end();
    }
  }

  private async runBatch(
    fetched: Job<DataType, ReturnType, NameType>[],
    token: string,
    span: JobSpan | undefined,
  ): Promise<FetchedBatch | undefined> {
    const jobs: Job<DataType, ReturnType, NameType>[] = [];
    for (const job of fetched) {
      const refusal = this.refusalOf(job);
      if (refusal) await this.failJob(job, token, refusal);
      else jobs.push(job);
    }
    if (jobs.length === 0) return undefined;

    const flights = jobs.map((job) => {
      this.lockRenewer.track(job.id, token);
      return this.inFlight.start(job.id, token);
    });
    // job.signal of a batch's jobs: the signal the batch processor gets (the worker's).
    const batchSignal = () => this.abort.signal;
    for (const job of jobs) processingSignals.set(job, batchSignal);
    try {
      for (const job of jobs) {
        this.emit('active', job, 'waiting');
        if (job.repeatJobKey)
          await this.scheduler
            .createNextIteration(job)
            .catch((error: unknown) => this.emitError(error));
      }
      let results: (ReturnType | Error)[];
      try {
        const run = () => this.batchProcessor(jobs, token, this.abort.signal);
        results = await (span ? span.run(run) : run());
        if (!Array.isArray(results) || results.length !== jobs.length) {
          throw new Error(
            `BatchWorker processor must return an array of ${jobs.length} results, one per job`,
          );
        }
      } catch (error) {
        const owned = jobs.filter((_, index) => !this.isGivenUp(flights[index]!, error));
        for (const flight of flights) if (flight.phase === 'running') flight.phase = 'finishing';
        await Promise.all(owned.map((job) => this.handleProcessorError(job, token, error)));
        return undefined;
      }
      return await this.finishBatch(jobs, flights, results, token);
    } finally {
      for (const [index, flight] of flights.entries()) {
        if (flight.phase !== 'returned') {
          this.lockRenewer.untrack(jobs[index]!.id);
          if (this.graceful) this.graceful.completedInTime += 1;
        }
        this.inFlight.end(flight);
      }
      for (const job of jobs) processingSignals.delete(job);
    }
  }

  /** Why a fetched job must fail before it runs (as Worker refuses a single job), if it must. */
  private refusalOf(job: Job<DataType, ReturnType, NameType>): Error | undefined {
    if (job.deferredFailure) return new UnrecoverableError(job.deferredFailure);
    if (
      this.opts.maxStartedAttempts !== undefined &&
      job.attemptsStarted > this.opts.maxStartedAttempts
    ) {
      return new UnrecoverableError('job started more than allowable limit');
    }
    return undefined;
  }

  /** Completes the successes in one call (fetching the next batch), then fails the failures. */
  private async finishBatch(
    jobs: Job<DataType, ReturnType, NameType>[],
    flights: Flight[],
    results: (ReturnType | Error)[],
    token: string,
  ): Promise<FetchedBatch | undefined> {
    const completing: {
      job: Job<DataType, ReturnType, NameType>;
      result: ReturnType;
      value: string;
    }[] = [];
    const failing: { job: Job<DataType, ReturnType, NameType>; error: Error }[] = [];
    for (const [index, job] of jobs.entries()) {
      const flight = flights[index]!;
      if (this.isGivenUp(flight)) continue;
      flight.phase = 'finishing';
      const result = results[index];
      if (result instanceof Error) {
        failing.push({ job, error: result });
        continue;
      }
      try {
        completing.push({
          job,
          result: result as ReturnType,
          value: JSON.stringify(result) ?? 'null',
        });
      } catch (error) {
        failing.push({
          job,
          error: new UnrecoverableError(
            `Return value is not JSON-serialisable: ${(error as Error).message}`,
          ),
        });
      }
    }

    const nextToken = this.nextToken();
    let next: BatchFetchResult | undefined;
    if (completing.length > 0) {
      const fetchNext = this.fetchNextIdentity(nextToken)
        ? this.batchRequest(nextToken)
        : undefined;
      let errors: (Error | undefined)[];
      try {
        ({ errors, next } = await this.backend.completeJobBatch({
          token,
          jobs: completing.map(({ job, value }) => ({
            jobId: job.id,
            value,
            keep: keepRule(job.opts.removeOnComplete, this.opts.removeOnComplete),
          })),
          metricsMaxDataPoints: this.opts.metrics?.maxDataPoints,
          fetchNext,
        }));
      } catch (error) {
        // The call itself failed (Redis away): the jobs stay active for the stalled checker.
        this.emitError(error);
        errors = completing.map(() => undefined);
        return undefined;
      }
      for (const [index, { job, result }] of completing.entries()) {
        const error = errors[index];
        if (!error) {
          job.returnvalue = result;
          job.finishedOn = Date.now();
          job.attemptsMade += 1;
          this.attempts.of(job)?.completed();
          this.emit('completed', job, result, 'active');
        } else if (error instanceof FailedChildrenError) {
          failing.push({ job, error: new UnrecoverableError(error.message) });
        } else if (error instanceof PendingDependenciesError) {
          failing.push({ job, error });
        } else {
          this.emitError(error);
        }
      }
    }
    await Promise.all(failing.map(({ job, error }) => this.failJob(job, token, error)));
    return next ? this.acceptNextBatch(next, nextToken) : undefined;
  }

  private acceptNextBatch(next: BatchFetchResult, token: string): FetchedBatch | undefined {
    const slot = asSlotFetch(next, token);
    if (slot.kind === 'work') return slot.works[0] as FetchedBatch;
    if (slot.rateLimitTtl > 0) this.limitUntil = Date.now() + slot.rateLimitTtl;
    return undefined;
  }
}

function asSlotFetch(result: BatchFetchResult, token: string): SlotFetch {
  if (result.kind === 'none') return result;
  const batch: FetchedBatch = { token, jobs: result.jobs };
  return { kind: 'work', works: [batch] };
}
