/**
 * GET /api/jobs/find?id=…: the queues (among the discovered ones) that hold a job with this id,
 * with its name and state; the console's quick-jump box opens the job page from it.
 */
import { z } from 'zod';
import type { JobFindResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { jobIdSchema } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

const query = z.object({ id: jobIdSchema });

export const GET = withRoute(
  // One HEXISTS per discovered queue, after a discovery scan: a search-sized cost.
  { role: 'viewer', query, budget: 'search' },
  async ({ query }): Promise<JobFindResponse> => ({
    locations: await admin().jobs.findEverywhere(query.id),
  }),
);
