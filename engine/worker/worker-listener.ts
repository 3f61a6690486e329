import type { Job } from '../job/job';

/** getNextJob's options (bullmq's GetNextJobOptions). */
export interface GetNextJobOptions {
  /** Wait up to drainDelay for a job when none is waiting (default true). */
  block?: boolean;
}

/**
 * The Worker's local events and their arguments, under bullmq's name, for code that types its
 * listeners with it.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export interface WorkerListener<
  DataType = any,
  ResultType = any,
  NameType extends string = string,
> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  active: (job: Job<DataType, ResultType, NameType>, prev: string) => void;
  closed: () => void;
  closing: (msg: string) => void;
  completed: (job: Job<DataType, ResultType, NameType>, result: ResultType, prev: string) => void;
  drained: () => void;
  error: (failedReason: Error) => void;
  failed: (
    job: Job<DataType, ResultType, NameType> | undefined,
    error: Error,
    prev: string,
  ) => void;
  paused: () => void;
  progress: (job: Job<DataType, ResultType, NameType>, progress: number | object) => void;
  ready: () => void;
  resumed: () => void;
  stalled: (jobId: string, prev: string) => void;
  lockRenewalFailed: (jobIds: string[]) => void;
  locksRenewed: (data: { count: number; jobIds: string[] }) => void;
}
