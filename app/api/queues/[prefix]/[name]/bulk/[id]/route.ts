import type { BulkOperationResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { requireBulkOp } from '@/lib/server/bulk-route';
import { bulkParams } from '@/lib/server/queue-page-input';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: bulkParams },
  ({ params }): Promise<BulkOperationResponse> => requireBulkOp(params),
);
