/**
 * The queue's failed jobs grouped by error (engine/admin/redis/error-groups.ts): one bounded call
 * of at most `budget` jobs, newest first, answering its groups, how far it got of how many, and a
 * cursor; the page merges successive calls. Signatures and samples are of the redacted reasons.
 * Calls pass the process-wide search gate (lib/server/search-gate.ts), as searches do.
 */
import { z } from 'zod';
import type { ErrorGroupsResponse } from '@/lib/api-types';
import { ERROR_GROUP_LIMITS } from 'oxmq/admin';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';
import { searchGate } from '@/lib/server/search-gate';

export const dynamic = 'force-dynamic';

const query = z.object({
  // `<offset>:<job id>`, as the previous answer's `next` gave it.
  cursor: z
    .string()
    .max(600)
    .regex(/^\d{1,15}:.+$/s, 'a cursor from a previous answer')
    .optional(),
  budget: z.coerce
    .number()
    .int()
    .min(1)
    .max(ERROR_GROUP_LIMITS.maxBudget)
    .default(ERROR_GROUP_LIMITS.maxBudget),
});

export const GET = withRoute(
  // Each call reads up to thousands of job hashes: the search's per-user budget.
  { role: 'viewer', params: queueParams, query, budget: 'search' },
  async ({ params, query, user, request }): Promise<ErrorGroupsResponse> => {
    await requireQueue(params.prefix, params.name);
    return searchGate().run(
      user.username,
      () =>
        admin().errorGroups.scan(params.prefix, params.name, {
          cursor: query.cursor,
          budget: query.budget,
        }),
      request.signal,
    );
  },
);
