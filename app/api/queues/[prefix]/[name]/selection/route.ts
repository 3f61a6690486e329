/** Retry, promote or remove the jobs the user ticked (at most SELECTION_LIMIT ids). */
import { z } from 'zod';
import type { SelectionResult } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { bulkActionSchema, requireActionRole } from '@/lib/server/queue-page-input';
import { jobIdSchema } from '@/lib/server/job-route';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const body = z
  .object({
    action: bulkActionSchema,
    ids: z.array(jobIdSchema).min(1).max(100),
  })
  .strict();

export const POST = withRoute(
  {
    mutation: { action: 'jobs.selection', target: queueTarget },
    params: queueParams,
    body,
  },
  async ({ params, body, user }): Promise<SelectionResult> => {
    requireActionRole(user, body.action);
    await requireQueue(params.prefix, params.name);
    return admin().bulk.onSelection(params.prefix, params.name, body.action, body.ids);
  },
);
