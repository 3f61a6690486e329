/**
 * The job page's actions, each one call of the engine's Job/Queue API so they
 * mean exactly what they mean for a bullmq user. Each answers false when the job does not exist;
 * engine errors (a job in the wrong state, a locked job) are thrown for the caller to map.
 */
import type { RedisClient } from '../connection';
import type { JobsOptions } from '../job-options';
import { queueHandle } from './queue-handle';
import { acceptedJobOptions } from '../job-option-names';

export type JobAction =
  | { kind: 'retry' }
  | { kind: 'promote' }
  | { kind: 'remove' }
  | { kind: 'priority'; priority: number }
  | { kind: 'delay'; delay: number }
  | { kind: 'data'; data: unknown };

export class JobActionStateError extends Error {
  override readonly name = 'JobActionStateError';
  readonly code = 'JOB_NOT_IN_STATE';
}

export async function runJobAction(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
  action: JobAction,
): Promise<boolean> {
  const job = await queueHandle(client, prefix, queueName).getJob(jobId);
  if (!job) return false;
  switch (action.kind) {
    case 'retry': {
      const state = await job.getState();
      if (state !== 'failed' && state !== 'completed') {
        throw new JobActionStateError(`Only failed or completed jobs can be retried (${state})`);
      }
      await job.retry(state);
      return true;
    }
    case 'promote':
      await job.promote();
      return true;
    case 'remove':
      await job.remove();
      return true;
    case 'priority':
      await job.changePriority({ priority: action.priority });
      return true;
    case 'delay':
      await job.changeDelay(action.delay);
      return true;
    case 'data':
      await job.updateData(action.data);
      return true;
  }
}

/**
 * Adds a copy of the job: same name, data and options, minus what would tie the copy to the
 * original (its jobId, a parent whose dependencies would change, a deduplication id that would
 * swallow the copy, a scheduler's repeat key). Returns the new job's id, undefined when the
 * original does not exist.
 */
export async function duplicateJob(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
): Promise<string | undefined> {
  const queue = queueHandle(client, prefix, queueName);
  const job = await queue.getJob(jobId);
  if (!job) return undefined;
  // Only options an add accepts: a bullmq producer may have stored fields OxMQ refuses.
  const opts: JobsOptions & Record<string, unknown> = { ...acceptedJobOptions(job.opts) };
  for (const key of ['jobId', 'parent', 'deduplication', 'repeat', 'repeatJobKey', 'prevMillis']) {
    delete opts[key];
  }
  const copy = await queue.add(job.name, job.data, opts);
  return copy.id;
}
