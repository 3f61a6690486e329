/**
 * Inputs and role rules shared by the queue page's routes. Which role an
 * action needs depends on the action, so routes taking an `action` check it here after
 * withRoute has checked the weakest one (operator): retry and promote are operator actions,
 * removing jobs is an admin action.
 */
import 'server-only';
import { z } from 'zod';
import { BULK_ACTION_PERMISSIONS } from '../permissions';
import { BULK_ACTIONS } from 'oxmq/admin';
import { queueCountStateSchema } from '../http/job-states';
import { hasRole } from '../roles';
import { ApiProblem } from './api-error';
import type { SessionUser } from './auth';
import { queueParams } from './queue-route';

/** A `state` parameter: one of the states a queue counts and lists. */
export const jobStateSchema = queueCountStateSchema;

export const bulkActionSchema = z.enum(BULK_ACTIONS);

/** A dotted path into job data, as the search accepts it. */
export const dataPathSchema = z
  .string()
  .max(256)
  .regex(/^[\w$-]+(\.[\w$-]+|\[\d+\])*$/, 'a dotted path such as user.email or items[0].sku');

/** The search's filter, carried by an "all matching" bulk operation (same rules as search). */
export const jobFilterSchema = z
  .object({
    mode: z.enum(['name', 'text', 'path']),
    query: z.string().max(512),
    path: dataPathSchema.optional(),
  })
  .strict()
  .refine((input) => input.mode !== 'path' || input.path !== undefined, {
    message: 'mode=path needs a path',
    path: ['path'],
  })
  .refine((input) => input.mode === 'path' || input.query.trim() !== '', {
    message: 'type something to search for',
    path: ['query'],
  });

export const bulkParams = queueParams.extend({
  id: z.string().regex(/^[0-9a-f]{24}$/, 'not a bulk operation id'),
});

export function requireActionRole(user: SessionUser, action: z.infer<typeof bulkActionSchema>) {
  const { role } = BULK_ACTION_PERMISSIONS[action];
  if (!hasRole(user.role, role)) {
    throw new ApiProblem(403, 'FORBIDDEN', `${action} needs the ${role} role`);
  }
}

/** Destructive queue actions carry the queue's name, typed by the user, as `confirm`. */
export function requireConfirmation(confirm: string, name: string): void {
  if (confirm !== name) {
    throw new ApiProblem(422, 'INVALID_INPUT', 'body.confirm: type the queue name to confirm', [
      { path: ['body', 'confirm'], message: 'must equal the queue name' },
    ]);
  }
}

/**
 * A rate limit as the limits panels send it: at most `max` starts per `duration` ms. Half of one
 * means nothing to the engine, so a missing half is refused in words rather than dropped.
 */
export const rateLimitSchema = z
  .object({
    max: z
      .number({ error: missingHalf('max (the most jobs started per window)') })
      .int()
      .min(1)
      .max(1_000_000),
    duration: z
      .number({ error: missingHalf('duration (the window, in ms)') })
      .int()
      .min(1)
      .max(24 * 60 * 60 * 1000),
  })
  .strict();

function missingHalf(what: string) {
  return (issue: { input: unknown }) =>
    issue.input === undefined
      ? `a rate limit needs both max and duration: give ${what} too, or send null to remove the limit`
      : 'must be a number';
}
