/** GET /api/queues/:prefix/:name/metrics?minutes=: one queue's throughput and failures. */
import type { QueueMetricsResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { minutesQuery } from '@/lib/server/metrics-query';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query: minutesQuery },
  async ({ params, query }): Promise<QueueMetricsResponse> => {
    await requireQueue(params.prefix, params.name);
    return { ...(await admin().metrics.queue(params, query.minutes)), minutes: query.minutes };
  },
);
