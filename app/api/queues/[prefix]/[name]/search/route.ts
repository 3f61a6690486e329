/**
 * Job search: `mode=id` is a direct lookup; name / text / path scan one state, at most
 * `budget` jobs and JOB_LIST_LIMITS.maxSearchBytes of job fields per call, and answer how far
 * they looked, which bound stopped them, and a cursor to continue. Text and path match the
 * redacted view of the data (engine/admin/job-search.ts), never a redacted value. Scans pass
 * the process-wide search gate (lib/server/search-gate.ts): a few at once, at most two per user.
 */
import { z } from 'zod';
import { SCAN_ORDERS } from 'oxmq/admin';
import type { JobSearchResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { JOB_ID_SHAPE_MESSAGE, jobIdSchema } from '@/lib/server/job-route';
import { jobStateSchema } from '@/lib/server/queue-page-input';
import { queueParams, requireQueue } from '@/lib/server/queue-route';
import { searchGate } from '@/lib/server/search-gate';
import { filterFields, refineFilter, SCAN_MODES } from '@/lib/server/search-filter';

export const dynamic = 'force-dynamic';

const query = refineFilter(
  z.object({
    mode: z.enum(['id', ...SCAN_MODES]),
    ...filterFields,
    state: jobStateSchema.default('failed'),
    order: z.enum(SCAN_ORDERS).default('newest'),
    cursor: z.coerce.number().int().min(0).default(0),
    budget: z.coerce.number().int().min(1).max(5_000).default(5_000),
  }),
).refine((input) => input.mode !== 'id' || jobIdSchema.safeParse(input.q.trim()).success, {
  message: JOB_ID_SHAPE_MESSAGE,
  path: ['q'],
});

export const GET = withRoute(
  // Each search reads up to thousands of job hashes: a per-user budget (route-rate-limit.ts).
  { role: 'viewer', params: queueParams, query, budget: 'search' },
  async ({ params, query, user, request }): Promise<JobSearchResponse> => {
    await requireQueue(params.prefix, params.name);
    if (query.mode === 'id') {
      const job = await admin().jobs.find(params.prefix, params.name, query.q.trim());
      return {
        mode: 'id',
        state: query.state,
        order: query.order,
        matches: job ? [job] : [],
        scanned: 0,
        from: 0,
        to: 0,
        total: 0,
        next: null,
        bytesRead: 0,
        tooLarge: 0,
        stoppedBy: null,
      };
    }
    const mode = query.mode; // narrowed here, not inside the closure
    const result = await searchGate().run(
      user.username,
      () =>
        admin().jobs.search(params.prefix, params.name, {
          state: query.state,
          mode,
          query: query.q,
          path: query.path,
          order: query.order,
          cursor: query.cursor,
          budget: query.budget,
        }),
      request.signal,
    );
    return { ...result, mode };
  },
);
