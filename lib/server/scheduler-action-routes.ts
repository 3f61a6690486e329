/**
 * The POST handlers of …/schedulers/:schedulerId/{run,pause,resume,repeat,remove} and
 * …/groups/:groupId/{pause,resume,concurrency,rate-limit}: operator actions (removing a
 * scheduler is an admin's: lib/permissions.ts), audited by withRoute and refused in read-only
 * mode like every mutation.
 */
import 'server-only';
import { z } from 'zod';
import type { GroupInfo, SchedulerActionResponse } from '../api-types';
import { withRoute } from './api';
import { admin } from './oxmq';
import { rateLimitSchema } from './queue-page-input';
import { requireQueue } from './queue-route';
import { groupParams, groupTarget, schedulerParams, schedulerTarget } from './scheduler-route';

type SchedulerVerb = 'run' | 'pause' | 'resume' | 'remove';

export function schedulerActionRoute(verb: SchedulerVerb) {
  return withRoute(
    {
      mutation: { action: `scheduler.${verb}`, target: schedulerTarget },
      params: schedulerParams,
    },
    async ({ params }): Promise<SchedulerActionResponse> => {
      await requireQueue(params.prefix, params.name);
      const { prefix, name, schedulerId: id } = params;
      if (verb === 'run') {
        return {
          ok: true,
          jobId: await admin().schedulers.runNow(prefix, name, id),
        };
      }
      if (verb === 'resume') {
        return {
          ok: true,
          next: await admin().schedulers.resume(prefix, name, id),
        };
      }
      await admin().schedulers[verb](prefix, name, id);
      return { ok: true };
    },
  );
}

/** A new schedule: `every` ms, or a cron `pattern` with an optional time zone. */
const repeatBody = z.union([
  z.object({ every: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }).strict(),
  z
    .object({
      pattern: z.string().trim().min(1).max(256),
      tz: z.string().min(1).max(64).optional(),
    })
    .strict(),
]);

export const schedulerRepeatRoute = withRoute(
  {
    mutation: { action: 'scheduler.repeat', target: schedulerTarget },
    params: schedulerParams,
    body: repeatBody,
  },
  async ({ params, body }): Promise<SchedulerActionResponse> => {
    await requireQueue(params.prefix, params.name);
    const next = await admin().schedulers.edit(
      params.prefix,
      params.name,
      params.schedulerId,
      body,
    );
    return { ok: true, next };
  },
);

export function groupStateRoute(verb: 'pause' | 'resume') {
  return withRoute(
    {
      mutation: { action: `group.${verb}`, target: groupTarget },
      params: groupParams,
    },
    async ({ params }): Promise<GroupInfo> => {
      await requireQueue(params.prefix, params.name);
      return admin().groups.act(params.prefix, params.name, params.groupId, { kind: verb });
    },
  );
}

export const groupConcurrencyRoute = withRoute(
  {
    mutation: { action: 'group.concurrency', target: groupTarget },
    params: groupParams,
    // null clears the group's own cap (the queue-wide default applies again).
    body: z.object({ concurrency: z.number().int().min(1).max(100_000).nullable() }).strict(),
  },
  async ({ params, body }): Promise<GroupInfo> => {
    await requireQueue(params.prefix, params.name);
    return admin().groups.act(params.prefix, params.name, params.groupId, {
      kind: 'concurrency',
      concurrency: body.concurrency,
    });
  },
);

export const groupRateLimitRoute = withRoute(
  {
    mutation: { action: 'group.rate-limit', target: groupTarget },
    params: groupParams,
    body: z
      .object({
        rateLimit: rateLimitSchema.nullable(),
      })
      .strict(),
  },
  async ({ params, body }): Promise<GroupInfo> => {
    await requireQueue(params.prefix, params.name);
    return admin().groups.act(params.prefix, params.name, params.groupId, {
      kind: 'rate-limit',
      rateLimit: body.rateLimit,
    });
  },
);
