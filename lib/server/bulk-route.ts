/** The 404 for bulk operations that do not exist or belong to another queue. */
import 'server-only';
import type { BulkOperation } from 'oxmq/admin';
import { ApiProblem } from './api-error';
import { admin } from './oxmq';

export async function requireBulkOp(params: {
  prefix: string;
  name: string;
  id: string;
}): Promise<BulkOperation> {
  const op = await admin().bulk.get(params.id);
  if (!op || op.prefix !== params.prefix || op.name !== params.name) {
    throw new ApiProblem(404, 'NOT_FOUND', `No bulk operation ${params.id} on this queue`);
  }
  return op;
}
