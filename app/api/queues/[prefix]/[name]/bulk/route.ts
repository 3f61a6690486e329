/**
 * Starts an "all N matching" bulk operation over a whole state, or over the jobs in it that
 * match a `filter` (a search's, or an error group's signature); the client then POSTs its chunks (see bulk.ts). Removing is
 * destructive, so it carries the queue's name typed by the user as `confirm`, like drain.
 */
import { z } from 'zod';
import type { BulkOperationResponse } from '@/lib/api-types';
import { BULK_ACTION_STATES } from 'oxmq/admin';
import { withRoute } from '@/lib/server/api';
import { bulkFilterSchema } from '@/lib/server/bulk-filter-input';
import { admin } from '@/lib/server/oxmq';
import {
  bulkActionSchema,
  jobStateSchema,
  requireActionRole,
  requireConfirmation,
} from '@/lib/server/queue-page-input';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const body = z
  .object({
    action: bulkActionSchema,
    state: jobStateSchema,
    filter: bulkFilterSchema.optional(),
    confirm: z.string().max(256).optional(),
  })
  .strict()
  .refine((input) => BULK_ACTION_STATES[input.action].includes(input.state), {
    message: 'this action does not apply to jobs in this state',
    path: ['state'],
  });

export const POST = withRoute(
  {
    mutation: { action: 'jobs.bulk.create', target: queueTarget },
    params: queueParams,
    body,
  },
  async ({ params, body, user }): Promise<BulkOperationResponse> => {
    requireActionRole(user, body.action);
    if (body.action === 'remove') requireConfirmation(body.confirm ?? '', params.name);
    await requireQueue(params.prefix, params.name);
    return admin().bulk.create({
      ...params,
      action: body.action,
      state: body.state,
      filter: body.filter ?? null,
      actor: user.username,
    });
  },
);
