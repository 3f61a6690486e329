/** GET ?cursor&count: a page of the queue's tenant groups in id order, and the defaults. */
import { z } from 'zod';
import type { GroupPage } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const query = z.object({
  // '' starts; otherwise the last group id of the previous page.
  cursor: z
    .string()
    .max(128)
    .regex(/^[A-Za-z0-9_.-]*$/, 'a cursor is a group id')
    .default(''),
  count: z.coerce.number().int().min(1).max(200).default(50),
});

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query },
  async ({ params, query }): Promise<GroupPage> => {
    await requireQueue(params.prefix, params.name);
    return admin().groups.list(params.prefix, params.name, query);
  },
);
