import { z } from 'zod';
import { jobActionRoute } from '@/lib/server/job-action-route';

export const dynamic = 'force-dynamic';

/** bullmq's largest priority (2^21); 0 takes the job out of the prioritized set. */
const MAX_PRIORITY = 2_097_152;

export const POST = jobActionRoute({
  action: 'priority',
  body: z.object({ priority: z.number().int().min(0).max(MAX_PRIORITY) }).strict(),
  toAction: async (body) => ({ kind: 'priority', priority: body.priority }),
});
