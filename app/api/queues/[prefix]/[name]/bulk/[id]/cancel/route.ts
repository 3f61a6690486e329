/** Cancelling only ever stops work, so any operator may cancel any bulk operation. */
import type { BulkOperationResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { requireBulkOp } from '@/lib/server/bulk-route';
import { admin } from '@/lib/server/oxmq';
import { bulkParams } from '@/lib/server/queue-page-input';
import { queueTarget } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const POST = withRoute(
  {
    mutation: { action: 'jobs.bulk.cancel', target: (p) => `${queueTarget(p)}#${p.id ?? '?'}` },
    params: bulkParams,
  },
  async ({ params }): Promise<BulkOperationResponse> => {
    const op = await requireBulkOp(params);
    return (await admin().bulk.cancel(op.id)) ?? op;
  },
);
