import type { Job } from '../job/job';

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
/** A Worker's processor: runs one job, resolves with its return value. */
export type Processor<DataType = any, ReturnType = any, NameType extends string = string> = (
  job: Job<DataType, ReturnType, NameType>,
  token?: string,
  signal?: AbortSignal,
) => Promise<ReturnType>;

/**
 * A BatchWorker's processor: gets the batch's jobs and resolves with one entry per job, in
 * order: the job's return value, or an Error that fails that job alone.
 */
export type BatchProcessor<DataType = any, ReturnType = any, NameType extends string = string> = (
  jobs: Job<DataType, ReturnType, NameType>[],
  token?: string,
  signal?: AbortSignal,
) => Promise<(ReturnType | Error)[]>;
/* eslint-enable @typescript-eslint/no-explicit-any */
