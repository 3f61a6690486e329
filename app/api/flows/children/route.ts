import { z } from 'zod';
import type { FlowChildrenResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { requireServedKey } from '@/lib/server/flow-route';
import { withTraceUrls } from '@/lib/server/links';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

const childrenQuery = z.object({
  parentKey: z.string().min(3).max(1024),
  cursor: z.string().max(4096).optional(),
  level: z.coerce.number().int().min(0).max(10_000).default(0),
  count: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
});

/** The next page of one flow node's children ("load more" on the graph). */
export const GET = withRoute(
  { role: 'viewer', query: childrenQuery },
  async ({ query }): Promise<FlowChildrenResponse> => {
    requireServedKey(query.parentKey);
    // A forged cursor is the engine's ValidationError: 422, not 500.
    const page = await admin().flows.children({
      parentKey: query.parentKey,
      cursor: query.cursor,
      level: query.level,
      count: query.count,
    });
    return { ...page, nodes: withTraceUrls(page.nodes) };
  },
);
