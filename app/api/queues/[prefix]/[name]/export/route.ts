/**
 * An export of one state's jobs, or of those a search filter keeps (`mode`, `q`, `path` as in
 * search), as JSON lines (`format=jsonl`, the default) or CSV, redacted, streamed as a file
 * download in walk order (newest first unless `order=oldest`), at most `limit` rows
 * (lib/server/export-stream.ts has the caps).
 */
import { z } from 'zod';
import { SCAN_ORDERS } from 'oxmq/admin';
import { withRoute } from '@/lib/server/api';
import { EXPORT_LIMITS, exportLines } from '@/lib/server/export-stream';
import { lineStreamResponse } from '@/lib/server/line-stream';
import { scanQuota } from '@/lib/server/live-stream-quota';
import { jobStateSchema } from '@/lib/server/queue-page-input';
import { queueParams, requireQueue } from '@/lib/server/queue-route';
import { filterFields, refineFilter, SCAN_MODES, toJobFilter } from '@/lib/server/search-filter';

export const dynamic = 'force-dynamic';

const query = refineFilter(
  z.object({
    mode: z.enum(SCAN_MODES).optional(),
    ...filterFields,
    state: jobStateSchema,
    order: z.enum(SCAN_ORDERS).default('newest'),
    format: z.enum(['jsonl', 'csv']).default('jsonl'),
    limit: z.coerce.number().int().min(1).max(EXPORT_LIMITS.maxRows).default(EXPORT_LIMITS.maxRows),
  }),
);

const CONTENT_TYPES = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
} as const;

/** A file name that is safe in a header whatever the queue is called. */
function fileName(name: string, state: string, format: string): string {
  const safe = name.replace(/[^\w.-]+/g, '_').slice(0, 80);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return `${safe}-${state}-${stamp}.${format}`;
}

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query, budget: 'search' },
  async ({ params, query, user }) => {
    await requireQueue(params.prefix, params.name);
    const release = scanQuota().acquire(user.username);
    const lines = exportLines({
      prefix: params.prefix,
      name: params.name,
      state: query.state,
      order: query.order,
      filter: toJobFilter(query),
      format: query.format,
      limit: query.limit,
    });
    return lineStreamResponse(
      lines,
      {
        'Content-Type': CONTENT_TYPES[query.format],
        'Content-Disposition': `attachment; filename="${fileName(params.name, query.state, query.format)}"`,
      },
      release,
    );
  },
);
