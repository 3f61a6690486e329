/** GET /api/metrics: completed and failed per minute for a page of discovered queues. */
import type { MetricsListResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { minutesQuery } from '@/lib/server/metrics-query';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

// The overview page reads an hour per queue; longer windows are for one queue at a time.
const MAX_LIST_MINUTES = 180;

export const GET = withRoute(
  { role: 'viewer', query: pageQuery(50, 20).extend(minutesQuery.shape) },
  async ({ query }): Promise<MetricsListResponse> => {
    const minutes = Math.min(query.minutes, MAX_LIST_MINUTES);
    const { queues, complete } = await admin().queues.discover();
    const start = (query.page - 1) * query.pageSize;
    const page = queues.slice(start, start + query.pageSize);
    return {
      queues: await Promise.all(page.map((queue) => admin().metrics.queue(queue, minutes))),
      minutes,
      total: queues.length,
      page: query.page,
      pageSize: query.pageSize,
      complete,
    };
  },
);
