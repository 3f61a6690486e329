import type { JobDetailResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { jobNotFound, jobParams, requireJobKey } from '@/lib/server/job-route';
import { toJobView } from '@/lib/server/job-view';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: jobParams },
  async ({ params }): Promise<JobDetailResponse> => {
    await requireJobKey(params);
    const [job, children] = await Promise.all([
      admin().jobs.detail(params.prefix, params.name, params.id),
      admin().jobs.children(params.prefix, params.name, params.id),
    ]);
    if (!job || !children) throw jobNotFound(params.id);
    return toJobView(params.prefix, params.name, job, children);
  },
);
