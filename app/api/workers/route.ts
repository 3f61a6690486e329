/**
 * GET /api/workers: the workers of every discovered queue (a page of them): connections from one
 * CLIENT LIST, merged with OxMQ heartbeat records into one row per worker.
 */
import type { WorkersResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', query: pageQuery(200, 100) },
  async ({ query }): Promise<WorkersResponse> => {
    const { queues, complete } = await admin().queues.discover();
    const start = (query.page - 1) * query.pageSize;
    return {
      queues: await admin().workers.roster(queues.slice(start, start + query.pageSize)),
      total: queues.length,
      page: query.page,
      pageSize: query.pageSize,
      complete,
    };
  },
);
