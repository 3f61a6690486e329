/**
 * GET /api/metrics/total: completed and failed per minute summed over a page of discovered
 * queues, the same page the overview lists (page and pageSize as GET /api/queues).
 */
import type { TotalThroughputResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { minutesQuery } from '@/lib/server/metrics-query';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

// As GET /api/metrics: an overview reads an hour or so; longer windows are for one queue.
const MAX_TOTAL_MINUTES = 180;

export const GET = withRoute(
  { role: 'viewer', query: pageQuery(100, 50).extend(minutesQuery.shape) },
  async ({ query }): Promise<TotalThroughputResponse> => {
    const { queues } = await admin().queues.discover();
    const start = (query.page - 1) * query.pageSize;
    return admin().metrics.total(
      queues.slice(start, start + query.pageSize),
      Math.min(query.minutes, MAX_TOTAL_MINUTES),
    );
  },
);
