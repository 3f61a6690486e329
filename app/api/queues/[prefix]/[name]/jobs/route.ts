import { consoleJobOptionsSchema } from 'oxmq';
import { z } from 'zod';
import type { JobActionResponse, JobListResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { jobStateSchema } from '@/lib/server/queue-page-input';
import { queueParams, queueTarget, requirePrefix, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const query = pageQuery(100, 25).extend({ state: jobStateSchema.default('waiting') });

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query },
  async ({ params, query }): Promise<JobListResponse> => {
    await requireQueue(params.prefix, params.name);
    return admin().jobs.list(params.prefix, params.name, query);
  },
);

// The options are checked by the engine's own declarations (engine/job/option-schema.ts).
const newJob = z
  .object({
    name: z.string().min(1).max(256),
    data: z.unknown().default({}),
    opts: consoleJobOptionsSchema.optional(),
  })
  .strict();

/** Adds a job (the queue need not exist yet: its first job creates it); answers its id. */
export const POST = withRoute(
  {
    mutation: { action: 'job.add', target: queueTarget },
    params: queueParams,
    body: newJob,
  },
  async ({ params, body }): Promise<JobActionResponse> => {
    requirePrefix(params.prefix);
    const id = await admin().jobs.add(params.prefix, params.name, body);
    return { ok: true, id };
  },
);
