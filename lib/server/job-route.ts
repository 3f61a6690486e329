/** Route parameters naming one job (engine refusals become answers in engine-errors.ts). */
import 'server-only';
import { z } from 'zod';
import { isPlainJobId } from 'oxmq/admin';
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
