/** Runs the next chunk of a bulk operation, under the role its action needs. */
import { z } from 'zod';
import type { BulkOperationResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { requireBulkOp } from '@/lib/server/bulk-route';
import { admin } from '@/lib/server/oxmq';
import { bulkParams, requireActionRole } from '@/lib/server/queue-page-input';
import { queueTarget } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const body = z.object({ chunk: z.number().int().min(1).max(500).optional() }).strict();

export const POST = withRoute(
  {
    mutation: { action: 'jobs.bulk.step', target: (p) => `${queueTarget(p)}#${p.id ?? '?'}` },
    params: bulkParams,
    body,
  },
  async ({ params, body, user }): Promise<BulkOperationResponse> => {
    const op = await requireBulkOp(params);
    requireActionRole(user, op.action);
    return (await admin().bulk.runChunk(op.id, body.chunk)) ?? op;
  },
);
