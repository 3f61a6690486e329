/** GET /api/queues/:prefix/:name/workers: the queue's live OxMQ workers, from their heartbeats. */
import { z } from 'zod';
import type { QueueHeartbeatsResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  {
    role: 'viewer',
    params: queueParams,
    query: z.object({ limit: z.coerce.number().int().min(1).max(1_000).default(100) }),
  },
  async ({ params, query }): Promise<QueueHeartbeatsResponse> => {
    await requireQueue(params.prefix, params.name);
    return admin().workers.heartbeats(params.prefix, params.name, query.limit);
  },
);
