/** Rate limit and global concurrency: read by viewers, tuned by operators (null removes). */
import { z } from 'zod';
import type { QueueLimits } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { rateLimitSchema } from '@/lib/server/queue-page-input';
import { admin } from '@/lib/server/oxmq';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams },
  async ({ params }): Promise<QueueLimits> => {
    await requireQueue(params.prefix, params.name);
    return admin().queues.limits(params.prefix, params.name);
  },
);

const body = z
  .object({
    rateLimit: rateLimitSchema.nullable().optional(),
    globalConcurrency: z.number().int().min(1).max(100_000).nullable().optional(),
  })
  .strict()
  .refine((input) => input.rateLimit !== undefined || input.globalConcurrency !== undefined, {
    message: 'change rateLimit, globalConcurrency or both',
  });

export const POST = withRoute(
  {
    mutation: { action: 'queue.limits', target: queueTarget },
    params: queueParams,
    body,
  },
  async ({ params, body }): Promise<QueueLimits> => {
    await requireQueue(params.prefix, params.name);
    return admin().queues.setLimits(params.prefix, params.name, body);
  },
);
