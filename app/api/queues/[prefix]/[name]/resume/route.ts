import type { QueueActionResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const POST = withRoute(
  {
    mutation: { action: 'queue.resume', target: queueTarget },
    params: queueParams,
  },
  async ({ params }): Promise<QueueActionResponse> => {
    await requireQueue(params.prefix, params.name);
    await admin().queues.resume(params.prefix, params.name);
    return { prefix: params.prefix, name: params.name, paused: false };
  },
);
