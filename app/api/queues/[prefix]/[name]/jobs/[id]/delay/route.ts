import { z } from 'zod';
import { jobActionRoute } from '@/lib/server/job-action-route';

export const dynamic = 'force-dynamic';

/** A year: anything longer is more likely a unit mistake (seconds for ms) than a plan. */
const MAX_DELAY_MS = 365 * 24 * 60 * 60 * 1000;

export const POST = jobActionRoute({
  action: 'delay',
  body: z.object({ delay: z.number().int().min(0).max(MAX_DELAY_MS) }).strict(),
  toAction: async (body) => ({ kind: 'delay', delay: body.delay }),
});
