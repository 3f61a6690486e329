import { computeBackoffDelay, type BackoffStrategy } from '../job/backoff';
import type { FinishableJob } from '../job/finishable-job';
import { appendStacktrace, capFailedReason } from '../job/stacktrace';
import { normalizeBackoff } from '../job/options';

/** What a failed attempt leads to, decided before anything is written. */
export interface FailurePlan {
  /** -1: fail for good; 0: retry now; > 0: retry after this many ms. */
  delay: number;
  /** Hash fields written with the outcome. */
  fields: { failedReason: string; stacktrace: string };
  stacktrace: string[];
  attemptsMade: number;
}

/**
 * bullmq's retry rule: retry while attempts remain, unless the error is an UnrecoverableError
 * (by name, so one from another copy of the library counts) or the processor discarded the job;
 * OxMQ adds a cancel through Redis (JobCancelledError).
 * The delay comes from the job's backoff; a strategy that throws fails the job with its message.
 */
export async function planFailure(
  job: FinishableJob,
  error: Error,
  strategy: BackoffStrategy | undefined,
): Promise<FailurePlan> {
  const stacktrace = appendStacktrace(job.stacktrace, error.stack, job.opts.stackTraceLimit);
  const fields = {
    failedReason: capFailedReason(error.message),
    stacktrace: JSON.stringify(stacktrace),
  };
  const attemptsMade = job.attemptsMade + 1;
  let delay = -1;
  // A cancelled attempt (JobCancelledError) ends the job: the cancel means stop, not retry.
  const unrecoverable =
    error.name === 'UnrecoverableError' || error.name === 'JobCancelledError' || job.isDiscarded();
  if (!unrecoverable && attemptsMade < (job.opts.attempts ?? 0)) {
    try {
      delay = await computeBackoffDelay(
        normalizeBackoff(job.opts.backoff),
        attemptsMade,
        error,
        job,
        strategy,
      );
    } catch (strategyError) {
      fields.failedReason = capFailedReason((strategyError as Error).message);
      delay = -1;
    }
  }
  return { delay, fields, stacktrace, attemptsMade };
}
