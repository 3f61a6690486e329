/**
 * A Job finishing itself: bullmq's manual-processing calls (job.moveToCompleted,
 * job.moveToFailed, job.extendLock) for code that fetched the job with worker.getNextJob and runs
 * it without a processor. The Worker's own processing path does the same moves through its
 * batcher; these are the one-job forms.
 */
import type { FetchResult } from '../backend/queue-backend';
import { ValidationError } from '../errors';
import type { FinishableJob } from './finishable-job';
import type { JobScope } from './scope';
import { jobJsonFromHash, type JobJson } from './json';
import { keepRule } from './keep-jobs';
import { planFailure } from '../worker/failure-plan';

/**
 * What a finishing call that fetched the next job returns, bullmq's shape:
 * [next job or null, its id or null, rate-limit ms, due time of the next delayed job].
 */
export type NextJobTuple = [JobJson | null, string | null, number, number];

function requireToken(method: string, token: unknown): asserts token is string {
  if (typeof token !== 'string' || token.length === 0) {
    throw new ValidationError(`${method} needs the lock token the job was fetched with`);
  }
}

function nextTuple(next: FetchResult): NextJobTuple {
  if (next.kind === 'job') return [jobJsonFromHash(next.jobId, next.hash), next.jobId, 0, 0];
  return [null, null, next.rateLimitTtl, next.nextDelayedTs];
}

/** The next job with the same token, when asked and the scope is a worker that may fetch. */
function fetchIdentity(scope: JobScope, token: string, fetchNext: boolean) {
  return fetchNext ? scope.finishing?.fetchIdentity(token) : undefined;
}

export async function completeJob(
  scope: JobScope,
  job: FinishableJob,
  returnValue: unknown,
  token: string,
  fetchNext: boolean,
): Promise<NextJobTuple | undefined> {
  requireToken('moveToCompleted', token);
  let value: string;
  try {
    value = JSON.stringify(returnValue) ?? 'null';
  } catch (error) {
    // The job stays active: the caller decides (moveToFailed, or a value that serialises).
    throw new ValidationError(`Return value is not JSON-serialisable: ${(error as Error).message}`);
  }
  const identity = fetchIdentity(scope, token, fetchNext);
  const next = await scope.backend.finishJob({
    jobId: job.id,
    token,
    outcome: 'completed',
    value,
    keep: keepRule(job.opts.removeOnComplete, scope.finishing?.removeOnComplete),
    attempts: job.opts.attempts ?? 0,
    fetchNext: identity,
    metricsMaxDataPoints: scope.finishing?.metricsMaxDataPoints,
  });
  job.returnvalue = returnValue;
  job.finishedOn = Date.now();
  job.attemptsMade += 1;
  return identity && next ? nextTuple(next) : undefined;
}

/**
 * A failed attempt: retried (now, or after the job's backoff) while attempts remain, else
 * failed for good, exactly as when a processor throws.
 */
export async function failJob(
  scope: JobScope,
  job: FinishableJob,
  err: Error,
  token: string,
  fetchNext: boolean,
): Promise<NextJobTuple | undefined> {
  requireToken('moveToFailed', token);
  const error = err instanceof Error ? err : new Error(String(err));
  const plan = await planFailure(job, error, scope.finishing?.backoffStrategy);
  const identity = fetchIdentity(scope, token, fetchNext);
  let next: FetchResult | undefined;
  if (plan.delay >= 0) {
    await scope.backend.retryJob({
      jobId: job.id,
      token,
      delay: plan.delay,
      lifo: job.opts.lifo === true,
      fields: plan.fields,
    });
    // The retry scripts take no fetch-next: a second call, after the job is safely moved.
    if (identity) next = await scope.backend.fetchNextJob(identity);
  } else {
    next = await scope.backend.finishJob({
      jobId: job.id,
      token,
      outcome: 'failed',
      value: plan.fields.failedReason,
      keep: keepRule(job.opts.removeOnFail, scope.finishing?.removeOnFail),
      attempts: job.opts.attempts ?? 0,
      fields: plan.fields,
      fetchNext: identity,
      metricsMaxDataPoints: scope.finishing?.metricsMaxDataPoints,
    });
  }
  job.attemptsMade = plan.attemptsMade;
  job.failedReason = plan.fields.failedReason;
  job.stacktrace = plan.stacktrace;
  if (plan.delay < 0) job.finishedOn = Date.now();
  if (plan.delay > 0) job.delay = plan.delay;
  return identity && next ? nextTuple(next) : undefined;
}

/** Renews the job's lock for `duration` ms; 1 when the token still held it, else 0. */
export async function extendJobLock(
  scope: JobScope,
  job: FinishableJob,
  token: string,
  duration: number,
): Promise<number> {
  requireToken('extendLock', token);
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0) {
    throw new ValidationError('extendLock needs a duration in ms (more than 0)');
  }
  const lost = await scope.backend.extendLocks([job.id], [token], Math.round(duration));
  return lost.length === 0 ? 1 : 0;
}
