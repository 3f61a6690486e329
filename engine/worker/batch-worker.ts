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
 *
 * It shares the Worker's public API (engine/worker/worker-base.ts) and slot loop, with a batch
 * per slot (engine/worker/batch-strategy.ts); it is not a Worker subclass.
 */
import { ValidationError } from '../errors';
import { BatchStrategy, type FetchedBatch } from './batch-strategy';
import type { BatchProcessor } from './processor';
import { WorkerBase } from './worker-base';
import type { WorkerOptions } from './options';
import { validateWorkerOptions } from './validation';

export type { BatchProcessor } from './processor';

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
> extends WorkerBase<DataType, ReturnType, NameType, FetchedBatch> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  static override readonly extraOptionKeys: readonly string[] = ['batchSize', 'maxBatchBytes'];

  readonly batchSize: number;
  readonly maxBatchBytes: number;
  declare readonly opts: BatchWorkerOptions;

  constructor(
    name: string,
    batchProcessor: BatchProcessor<DataType, ReturnType, NameType>,
    opts: BatchWorkerOptions,
  ) {
    // Everything that can refuse the arguments runs before any connection opens.
    if (typeof batchProcessor !== 'function') {
      throw new ValidationError('BatchWorker needs a processor function (jobs) => results');
    }
    validateBatchOptions(opts ?? {});
    validateWorkerOptions(opts, new.target.extraOptionKeys);
    super(name, opts);
    this.batchSize = opts.batchSize ?? BATCH_DEFAULTS.batchSize;
    this.maxBatchBytes = opts.maxBatchBytes ?? BATCH_DEFAULTS.maxBatchBytes;
    const strategy = new BatchStrategy(this.slotContext, this.outcomes, batchProcessor, {
      batchSize: this.batchSize,
      maxBatchBytes: this.maxBatchBytes,
    });
    this.useStrategy(strategy, opts.autorun !== false);
  }
}
