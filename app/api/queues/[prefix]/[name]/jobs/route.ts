import type { JobListResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { queuePage } from '@/lib/server/oxmq';
import { jobStateSchema } from '@/lib/server/queue-page-input';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const query = pageQuery(100, 25).extend({ state: jobStateSchema.default('waiting') });

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query },
  async ({ params, query }): Promise<JobListResponse> => {
    await requireQueue(params.prefix, params.name);
    return queuePage.listJobs(params.prefix, params.name, query);
  },
);
