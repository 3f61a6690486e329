/**
 * GET /api/metrics/sparklines?queues=: the last hour's completed and failed jobs per minute of the
 * queues named (the overview's listed page: comma-separated `<prefix>/<name>`, each part
 * URI-encoded, at most 100), from the timing history. A few fields per queue
 * (engine/admin/redis/history-sparklines.ts); queues the console does not serve or that do not
 * exist are left out.
 */
import { z } from 'zod';
import type { HistorySparklinesResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { liveQueuesQuery } from '@/lib/server/live-queues-param';
import { admin, configuredPrefixes } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

/** The overview's page size. */
const MAX_SPARKLINE_QUEUES = 100;

const query = z.object({
  queues: liveQueuesQuery.shape.queues.refine((queues) => queues.length <= MAX_SPARKLINE_QUEUES, {
    message: `at most ${MAX_SPARKLINE_QUEUES} queues`,
  }),
});

export const GET = withRoute({ role: 'viewer', query }, async ({ query }) => {
  const served = query.queues.filter((queue) => configuredPrefixes().includes(queue.prefix));
  const existing = await admin().queues.existing(served);
  const answer: HistorySparklinesResponse = await admin().history.sparklines(existing);
  return answer;
});
