/** GET ?page&pageSize: a page of one tenant group's line (next to run first) and its running jobs. */
import type { GroupJobs } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { requireQueue } from '@/lib/server/queue-route';
import { groupParams } from '@/lib/server/scheduler-route';

export const dynamic = 'force-dynamic';

const query = pageQuery(100, 20);

export const GET = withRoute(
  { role: 'viewer', params: groupParams, query },
  async ({ params, query }): Promise<GroupJobs> => {
    await requireQueue(params.prefix, params.name);
    return admin().groups.jobs(params.prefix, params.name, params.groupId, query);
  },
);
