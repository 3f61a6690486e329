import type { JobLogsResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { jobParams, requireJobKey } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

/** Page 1 is the newest `pageSize` lines (a tail), page 2 the ones before them. */
export const GET = withRoute(
  { role: 'viewer', params: jobParams, query: pageQuery(200, 50) },
  async ({ params, query }): Promise<JobLogsResponse> => {
    await requireJobKey(params);
    const logs = await admin().jobs.logs(
      params.prefix,
      params.name,
      params.id,
      query.page,
      query.pageSize,
    );
    return { ...logs, page: query.page, pageSize: query.pageSize };
  },
);
