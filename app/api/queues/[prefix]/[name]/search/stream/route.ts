/**
 * A streamed search: walks the whole state (newest first unless `order=oldest`) and answers
 * NDJSON lines as it goes: `matches` as found, `progress` a few times a second, `end` (or
 * `error`) last (lib/api-types.ts SearchStreamLine). The walk stops when the client goes away.
 * Text and path match the redacted view of the data (engine/admin/job-search.ts).
 */
import { z } from 'zod';
import { SCAN_ORDERS } from 'oxmq/admin';
import { withRoute } from '@/lib/server/api';
import { lineStreamResponse } from '@/lib/server/line-stream';
import { scanQuota } from '@/lib/server/live-stream-quota';
import { jobStateSchema } from '@/lib/server/queue-page-input';
import { queueParams, requireQueue } from '@/lib/server/queue-route';
import { filterFields, refineFilter, SCAN_MODES, toJobFilter } from '@/lib/server/search-filter';
import { searchStreamLines } from '@/lib/server/search-stream';

export const dynamic = 'force-dynamic';

const query = refineFilter(
  z.object({
    mode: z.enum(SCAN_MODES),
    ...filterFields,
    state: jobStateSchema.default('waiting'),
    order: z.enum(SCAN_ORDERS).default('newest'),
  }),
);

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query, budget: 'search' },
  async ({ params, query, user }) => {
    await requireQueue(params.prefix, params.name);
    const release = scanQuota().acquire(user.username);
    const lines = searchStreamLines({
      prefix: params.prefix,
      name: params.name,
      state: query.state,
      order: query.order,
      // A mode is required here, so there is always a filter.
      filter: toJobFilter(query)!,
    });
    return lineStreamResponse(
      lines,
      { 'Content-Type': 'application/x-ndjson; charset=utf-8' },
      release,
    );
  },
);
