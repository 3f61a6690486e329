import { z } from 'zod';
import { jobActionRoute } from '@/lib/server/job-action-route';

export const dynamic = 'force-dynamic';

export const POST = jobActionRoute({
  action: 'remove',
  body: z.object({}).strict(),
  toAction: async () => ({ kind: 'remove' }),
});
