/** Starts an "all N matching" bulk operation; the client then POSTs its chunks (see bulk.ts). */
import { z } from 'zod';
import type { BulkOperationResponse } from '@/lib/api-types';
import { BULK_ACTION_STATES } from '@/engine/admin';
import { withRoute } from '@/lib/server/api';
import { queuePage } from '@/lib/server/oxmq';
import { bulkActionSchema, jobStateSchema, requireActionRole } from '@/lib/server/queue-page-input';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const body = z
  .object({ action: bulkActionSchema, state: jobStateSchema })
  .strict()
  .refine((input) => BULK_ACTION_STATES[input.action].includes(input.state), {
    message: 'this action does not apply to jobs in this state',
    path: ['state'],
  });

export const POST = withRoute(
  {
    role: 'operator',
    mutation: { action: 'jobs.bulk.create', target: queueTarget },
    params: queueParams,
    body,
  },
  async ({ params, body, user }): Promise<BulkOperationResponse> => {
    requireActionRole(user, body.action);
    await requireQueue(params.prefix, params.name);
    return queuePage.createBulkOp({ ...params, ...body, actor: user.username });
  },
);
