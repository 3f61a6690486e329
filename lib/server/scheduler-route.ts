/**
 * Route parameters and engine-error mapping shared by the schedulers and groups routes
 * (…/schedulers/:schedulerId/<action>, …/groups/:groupId/<action>).
 */
import 'server-only';
import { z } from 'zod';
import { ApiProblem } from './api-error';
import { engineCall } from './job-route';
import { queueParams } from './queue-route';

export const schedulerParams = queueParams.extend({
  // Any string names a scheduler (`Q repeat:<id>`); actions only touch ones that exist.
  schedulerId: z.string().min(1).max(512),
});

export const groupParams = queueParams.extend({
  // The engine's own rule (validateGroupId); refused here before it reaches a key name.
  groupId: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.-]+$/, 'a group id is 1..128 characters of [A-Za-z0-9_.-]'),
});

export const schedulerTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}:scheduler:${params.schedulerId ?? '?'}`;

export const groupTarget = (params: Record<string, string>) =>
  `${params.prefix ?? '?'}:${params.name ?? '?'}:group:${params.groupId ?? '?'}`;

/**
 * engineCall (a ValidationError is 422 with the engine's message) plus the scheduler and group
 * refusals: a scheduler or group that is not there is 404; resuming a running scheduler,
 * editing a paused one, or a schedule slot taken by another job is 409.
 */
export async function controlCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await engineCall(call);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'SCHEDULER_NOT_FOUND' || code === 'GROUP_NOT_FOUND') {
      throw new ApiProblem(404, 'NOT_FOUND', message);
    }
    if (
      code === 'SCHEDULER_PAUSED_STATE' ||
      code === 'SCHEDULER_JOB_ID_COLLISION' ||
      code === 'SCHEDULER_JOB_SLOTS_BUSY'
    ) {
      throw new ApiProblem(409, 'CONFLICT', message);
    }
    throw error;
  }
}
