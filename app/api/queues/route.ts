import type { QueueListResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { consoleLinks } from '@/lib/server/links';
import { admin, isReadOnly } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', query: pageQuery(100, 50) },
  async ({ query }): Promise<QueueListResponse> => {
    const { queues, complete } = await admin().queues.discover();
    const start = (query.page - 1) * query.pageSize;
    const page = queues.slice(start, start + query.pageSize);
    return {
      queues: await admin().queues.overviews(page),
      total: queues.length,
      page: query.page,
      pageSize: query.pageSize,
      complete,
      readOnly: isReadOnly(),
      links: consoleLinks(),
    };
  },
);
