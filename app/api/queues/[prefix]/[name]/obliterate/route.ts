/** Deletes the queue and all its jobs: admin, with a typed confirmation. */
import { z } from 'zod';
import type { QueueOkResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { requireConfirmation } from '@/lib/server/queue-page-input';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const body = z.object({ confirm: z.string().max(256), force: z.boolean().default(false) }).strict();

export const POST = withRoute(
  {
    mutation: { action: 'queue.obliterate', target: queueTarget },
    params: queueParams,
    body,
  },
  async ({ params, body }): Promise<QueueOkResponse> => {
    requireConfirmation(body.confirm, params.name);
    await requireQueue(params.prefix, params.name);
    await admin().queues.obliterate(params.prefix, params.name, body.force);
    return { ok: true };
  },
);
