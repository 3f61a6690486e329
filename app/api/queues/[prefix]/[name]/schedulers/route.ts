/** GET ?page&pageSize: a page of the queue's job schedulers, soonest next run first. */
import type { SchedulerPage } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query: pageQuery(100, 25) },
  async ({ params, query }): Promise<SchedulerPage> => {
    await requireQueue(params.prefix, params.name);
    return admin().schedulers.list(params.prefix, params.name, query);
  },
);
