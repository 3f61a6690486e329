import { z } from 'zod';
import type { FlowGraphResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { requireServedKey } from '@/lib/server/flow-route';
import { withTraceUrls } from '@/lib/server/links';
import { jobParams, requireJobKey } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';
import { ApiProblem } from '@/lib/server/api-error';

export const dynamic = 'force-dynamic';

const flowParams = jobParams.omit({ name: true }).extend({ queue: jobParams.shape.name });

// Bounded for a browser to draw: "load more" on a node reads its next children page.
const flowQuery = z.object({
  depth: z.coerce
    .number()
    .int()
    .min(1)
    .default(4)
    .transform((n) => Math.min(n, 10)),
  maxNodes: z.coerce
    .number()
    .int()
    .min(1)
    .default(200)
    .transform((n) => Math.min(n, 500)),
  maxChildrenPerNode: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((n) => Math.min(n, 100)),
});

/** The flow a job belongs to: climbs to its root, then reads the graph down from there. */
export const GET = withRoute(
  { role: 'viewer', params: flowParams, query: flowQuery },
  async ({ params, query }): Promise<FlowGraphResponse> => {
    await requireJobKey({ prefix: params.prefix, name: params.queue, id: params.id });
    const jobKey = `${params.prefix}:${params.queue}:${params.id}`;
    const root = await admin().flows.rootOf(jobKey);
    if (!root) throw new ApiProblem(404, 'NOT_FOUND', `No job ${params.id} in this queue`);
    const top = requireServedKey(root.rootKey);
    const graph = await admin().flows.graph({
      prefix: top.prefix,
      queueName: top.queueName,
      jobId: top.id,
      depth: query.depth,
      maxNodes: query.maxNodes,
      maxChildrenPerNode: query.maxChildrenPerNode,
    });
    if (!graph) throw new ApiProblem(404, 'NOT_FOUND', `The flow's root ${root.rootKey} is gone`);
    return { jobKey, root, graph: { ...graph, nodes: withTraceUrls(graph.nodes) } };
  },
);
