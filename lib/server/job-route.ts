/** Route parameters naming one job (engine refusals become answers in engine-errors.ts). */
import 'server-only';
import { z } from 'zod';
import { hasJobIdShape } from 'oxmq/admin';
import { ApiProblem } from './api-error';
import { admin } from './oxmq';
import { queueParams, requireQueue } from './queue-route';

/**
 * A job id as it enters from a request (route parameter, selection, search). It may contain ':' (a
 * job scheduler's jobs are `repeat:<scheduler id>:<millis>`), but only as a job id can
 * (engine/admin/redis/job-id.ts): `1:processed` or `1:lock` would name another key of job 1.
 * Whether an id of that shape names a job is a question for Redis (requireJobKey): `meta` has the
 * shape and is a key of the queue.
 */
export const JOB_ID_SHAPE_MESSAGE =
  'a job id contains no ":" or exactly two (as in repeat:<scheduler id>:<millis>)';

export const jobIdSchema = z.string().min(1).max(512).refine(hasJobIdShape, JOB_ID_SHAPE_MESSAGE);

export const jobParams = queueParams.extend({ id: jobIdSchema });

export const jobTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}:${params.id ?? '?'}`;

export function jobNotFound(id: string): ApiProblem {
  return new ApiProblem(404, 'NOT_FOUND', `No job ${id} in this queue`);
}

/**
 * Throws 404 unless the queue is served, and 422 when the id names a key of the queue that is
 * no job (a job's lock, logs or children's record, a queue key, a scheduler's record): the engine
 * would read, change or delete it as a job. An id with no key at all passes, for the route to
 * answer as it answers a job that is gone.
 */
export async function requireJobKey(params: {
  prefix: string;
  name: string;
  id: string;
}): Promise<void> {
  await requireQueue(params.prefix, params.name);
  const kind = await admin().jobs.keyKind(params.prefix, params.name, params.id);
  if (kind === 'not-a-job') {
    throw new ApiProblem(
      422,
      'INVALID_INPUT',
      `${params.id} is not a job of queue ${params.name}: its key holds other data (a job's lock, logs or children, a key of the queue, a scheduler)`,
    );
  }
}
