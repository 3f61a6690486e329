/**
 * GET /api/queues/:prefix/:name/history?range=&name=: the queue's timing and backlog history
 * (docs/metrics.md, "Timing history"): evenly spaced points of the range, the range's totals and
 * its job names; `name` narrows outcomes and timings to one job name.
 */
import type { QueueHistoryResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { historyQuerySchema } from '@/lib/http/history';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query: historyQuerySchema },
  async ({ params, query }): Promise<QueueHistoryResponse> => {
    await requireQueue(params.prefix, params.name);
    const history = await admin().history.queue(params, { range: query.range, name: query.name });
    return { ...history, prefix: params.prefix, name: params.name, jobName: query.name ?? null };
  },
);
