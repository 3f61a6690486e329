/** GET /api/workers: connected workers of every discovered queue, from one CLIENT LIST. */
import type { WorkersResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { discoverQueues, queueWorkers } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', query: pageQuery(200, 100) },
  async ({ query }): Promise<WorkersResponse> => {
    const { queues, complete } = await discoverQueues();
    const start = (query.page - 1) * query.pageSize;
    return {
      queues: await queueWorkers(queues.slice(start, start + query.pageSize)),
      total: queues.length,
      page: query.page,
      pageSize: query.pageSize,
      complete,
    };
  },
);
