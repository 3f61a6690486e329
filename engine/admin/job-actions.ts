/**
 * The job page's actions, each one call of the engine's Job/Queue API so they
 * mean exactly what they mean for a bullmq user. Each answers false when the job does not exist.
 * An action the job's state does not allow is refused with JobActionStateError, in words a
 * person can act on (job-action-states.ts), before anything is sent; so is one the script
 * refuses because the job changed between that check and the script.
 */
import type { RedisClient } from '../backend/redis/connection';
import type { Job } from '../job/job';
import type { JobsOptions } from '../job/options';
import type { Queue } from '../queue/queue';
import { queueHandle } from './queue-handle';
import { acceptedJobOptions } from '../job/options';
import {
  groupedPriorityRefusal,
  jobActionRefusal,
  jobChangedRefusal,
  jobGoneRefusal,
  schedulerJobRefusal,
  type JobActionState,
} from './job-action-states';

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

/**
 * Engine codes a job action's script answers when the job is not as the action needs it:
 * moved (not in the expected state, no or another lock), gone, or a scheduler's pending run.
 * Job.remove reports a locked job as JOB_NOT_FOUND, as bullmq does.
 */
const STATE_CODES = new Set([
  'JOB_NOT_IN_STATE',
  'JOB_NOT_FOUND',
  'LOCK_NOT_FOUND',
  'LOCK_MISMATCH',
  'JOB_BELONGS_TO_SCHEDULER',
]);

export async function runJobAction(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
  action: JobAction,
): Promise<boolean> {
  const queue = queueHandle(client, prefix, queueName);
  const job = await queue.getJob(jobId);
  if (!job) return false;
  const state = await job.getState();
  const refusal = jobActionRefusal(action.kind, job.id, state);
  if (refusal) throw new JobActionStateError(refusal);
  const group = job.opts.group?.id;
  if (action.kind === 'priority' && action.priority !== 0 && group !== undefined) {
    throw new JobActionStateError(groupedPriorityRefusal(job.id, group));
  }
  await performJobAction(queue, job, action, state);
  return true;
}

/**
 * The action itself, for a job seen in `seen` (a state the action works in). The job may move
 * before the script runs (a worker takes it, its delay ends, someone removes it): the script's
 * refusal is then put in words from the job's state as it is now.
 */
export async function performJobAction(
  queue: Queue,
  job: Job,
  action: JobAction,
  seen: JobActionState,
): Promise<void> {
  try {
    switch (action.kind) {
      case 'retry':
        await job.retry(seen === 'completed' ? 'completed' : 'failed');
        return;
      case 'promote':
        return await job.promote();
      case 'remove':
        return await job.remove();
      case 'priority':
        return await job.changePriority({ priority: action.priority });
      case 'delay':
        return await job.changeDelay(action.delay);
      case 'data':
        return await job.updateData(action.data);
    }
  } catch (error) {
    throw await explainRefusal(queue, job.id, action, error);
  }
}

async function explainRefusal(
  queue: Queue,
  jobId: string,
  action: JobAction,
  error: unknown,
): Promise<unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !STATE_CODES.has(code)) return error;
  if (code === 'JOB_BELONGS_TO_SCHEDULER') {
    return new JobActionStateError(schedulerJobRefusal(jobId));
  }
  const now = await queue.getJob(jobId);
  if (!now) return new JobActionStateError(jobGoneRefusal(jobId));
  const state = await now.getState();
  return new JobActionStateError(
    jobActionRefusal(action.kind, jobId, state) ?? jobChangedRefusal(jobId, state),
  );
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
