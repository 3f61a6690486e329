import { z } from 'zod';
import type { JobActionResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { jobNotFound, jobParams, jobTarget, requireJobKey } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

/** Adds a copy of the job (same name, data and options, a new id); answers the copy's id. */
export const POST = withRoute(
  {
    mutation: { action: 'job.duplicate', target: jobTarget },
    params: jobParams,
    body: z.object({}).strict(),
  },
  async ({ params }): Promise<JobActionResponse> => {
    await requireJobKey(params);
    const id = await admin().jobs.duplicate(params.prefix, params.name, params.id);
    if (id === undefined) throw jobNotFound(params.id);
    return { ok: true, id };
  },
);
