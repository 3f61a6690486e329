/**
 * GET /api/metrics/history?range=&name=&page=&pageSize=: the timing and backlog history summed
 * over a page of discovered queues, point by point (their job names merged). Each queue's whole
 * range is read, so a page is at most 20 queues.
 */
import type { HistoryAcrossResponse } from '@/lib/api-types';
import { historyQuerySchema } from '@/lib/http/history';
import { pageQuery, withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', query: pageQuery(20, 20).extend(historyQuerySchema.shape) },
  async ({ query }): Promise<HistoryAcrossResponse> => {
    const { queues, complete } = await admin().queues.discover();
    const start = (query.page - 1) * query.pageSize;
    const page = queues.slice(start, start + query.pageSize);
    const history = await admin().history.across(page, { range: query.range, name: query.name });
    return {
      ...history,
      jobName: query.name ?? null,
      queues: page.map(({ prefix, name }) => ({ prefix, name })),
      discovered: queues.length,
      page: query.page,
      pageSize: query.pageSize,
      complete,
    };
  },
);
