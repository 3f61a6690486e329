import { z } from 'zod';
import type { AuditListResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { AUDIT_DEFAULTS, AUDIT_ID_PATTERN } from 'oxmq/admin';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

const auditQuery = z.object({
  /** `refused`: requests refused for want of a role, origin or writable console. */
  kind: z.enum(['accepted', 'refused']).default('accepted'),
  before: z.string().regex(AUDIT_ID_PATTERN, 'must be an audit entry id').optional(),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .default(AUDIT_DEFAULTS.pageSize)
    .transform((size) => Math.min(size, AUDIT_DEFAULTS.maxPageSize)),
});

export const GET = withRoute(
  { role: 'operator', query: auditQuery },
  async ({ query }): Promise<AuditListResponse> =>
    admin().audit.read({ before: query.before, count: query.pageSize, kind: query.kind }),
);
