/** Route parameters naming one job, and the mapping of engine errors to API answers. */
import 'server-only';
import { z } from 'zod';
import { isPlainJobId } from '@/engine/admin';
import { ApiProblem } from './api-error';
import { queueParams, requireQueue } from './queue-route';

/**
 * A job id as it enters from a request (route parameter, selection, search). Job keys are
 * split at ':' (parseJobKey), so an id with one could name another key of the job, such as
 * `1:processed` (its children's record) or `1:lock`: every place an id comes in uses this.
 */
export const jobIdSchema = z
  .string()
  .min(1)
  .max(512)
  .refine(isPlainJobId, 'a job id cannot contain ":"');

export const jobParams = queueParams.extend({ id: jobIdSchema });

export const jobTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}:${params.id ?? '?'}`;

export function jobNotFound(id: string): ApiProblem {
  return new ApiProblem(404, 'NOT_FOUND', `No job ${id} in this queue`);
}

export { requireQueue };

/**
 * Runs an engine call and answers its typed refusals with a status: a job in the wrong state
 * or locked by a worker is 409 CONFLICT, a value the engine refuses is 422, a vanished job 404.
 */
export async function engineCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const code =
      error instanceof Error && 'code' in error && typeof error.code === 'string'
        ? error.code
        : undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'VALIDATION') throw new ApiProblem(422, 'INVALID_INPUT', message);
    if (code === 'JOB_NOT_FOUND') throw new ApiProblem(409, 'CONFLICT', message);
    if (
      code === 'JOB_NOT_IN_STATE' ||
      code === 'LOCK_MISMATCH' ||
      code === 'LOCK_NOT_FOUND' ||
      code === 'PENDING_DEPENDENCIES' ||
      code === 'JOB_BELONGS_TO_SCHEDULER' ||
      code === 'PARENT_NOT_FOUND'
    ) {
      throw new ApiProblem(409, 'CONFLICT', message);
    }
    throw error;
  }
}
