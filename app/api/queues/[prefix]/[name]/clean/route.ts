/** Removes jobs of one state older than a grace period (bounded per call): admin, confirmed. */
import { z } from 'zod';
import type { QueueCleanResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { requireConfirmation } from '@/lib/server/queue-page-input';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const body = z
  .object({
    confirm: z.string().max(256),
    state: z.enum(['completed', 'failed', 'delayed', 'waiting', 'prioritized']),
    graceMs: z
      .number()
      .int()
      .min(0)
      .max(365 * 24 * 60 * 60 * 1000),
    limit: z.number().int().min(1).max(10_000).optional(),
  })
  .strict();

export const POST = withRoute(
  {
    mutation: { action: 'queue.clean', target: queueTarget },
    params: queueParams,
    body,
  },
  async ({ params, body }): Promise<QueueCleanResponse> => {
    requireConfirmation(body.confirm, params.name);
    await requireQueue(params.prefix, params.name);
    const ids = await admin().queues.clean(params.prefix, params.name, {
      state: body.state,
      graceMs: body.graceMs,
      limit: body.limit,
    });
    return { removed: ids.length };
  },
);
