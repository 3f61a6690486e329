/**
 * One POST route per job action: its body schema and how
 * the body becomes an engine action. Every one is audited by withRoute as `job.<action>`.
 */
import 'server-only';
import type { z } from 'zod';
import type { JobAction } from 'oxmq/admin';
import type { JobActionResponse } from '../api-types';
import { withRoute } from './api';
import { jobNotFound, jobParams, jobTarget, requireJobKey } from './job-route';
import { admin } from './oxmq';

type JobActionName = 'retry' | 'promote' | 'delay' | 'priority' | 'data' | 'remove';

interface JobActionSpec<B extends z.ZodType> {
  /** The job action; its role is `job.<action>`'s in lib/permissions.ts. */
  action: JobActionName;
  body: B;
  /** The engine action, given the body and the job's route params. */
  toAction: (
    body: z.output<B>,
    params: { prefix: string; name: string; id: string },
  ) => Promise<JobAction>;
}

export function jobActionRoute<B extends z.ZodType>(spec: JobActionSpec<B>) {
  return withRoute(
    {
      mutation: { action: `job.${spec.action}` as const, target: jobTarget },
      params: jobParams,
      body: spec.body,
    },
    async ({ params, body }): Promise<JobActionResponse> => {
      await requireJobKey(params);
      const action = await spec.toAction(body, params);
      const found = await admin().jobs.act(params.prefix, params.name, params.id, action);
      if (!found) throw jobNotFound(params.id);
      return { ok: true };
    },
  );
}
