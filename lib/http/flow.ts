/** The flows page: the bounded graph under a flow's root, and further pages of a node's children. */
import { z } from 'zod';

const childStatusSchema = z.enum(['processed', 'unprocessed', 'failed', 'ignored']);

/** A graph node, with its trace viewer link when it has a trace and OXMQ_TRACE_URL is set. */
const flowGraphNodeSchema = z.strictObject({
  key: z.string(),
  id: z.string(),
  queueName: z.string(),
  prefix: z.string(),
  name: z.string(),
  state: z.enum([
    'completed',
    'failed',
    'active',
    'waiting',
    'delayed',
    'prioritized',
    'waiting-children',
    'unknown',
  ]),
  timestamp: z.number(),
  processedOn: z.number().optional(),
  finishedOn: z.number().optional(),
  attemptsMade: z.number(),
  attemptsStarted: z.number(),
  traceId: z.string().optional(),
  failedReason: z.string().optional(),
  parentKey: z.string().optional(),
  childCount: z.record(childStatusSchema, z.number()),
  missing: z.literal(true).optional(),
  level: z.number(),
  childrenCursor: z.string().optional(),
  traceUrl: z.string().optional(),
});
export type FlowGraphNode = z.infer<typeof flowGraphNodeSchema>;

const flowGraphEdgeSchema = z.strictObject({
  from: z.string(),
  to: z.string(),
  status: childStatusSchema,
});
export type FlowGraphEdge = z.infer<typeof flowGraphEdgeSchema>;

/** GET /api/flows/:prefix/:queue/:id. */
export const flowGraphResponseSchema = z.strictObject({
  /** The job the page was opened for. */
  jobKey: z.string(),
  root: z.strictObject({ rootKey: z.string(), hops: z.number(), reachedTop: z.boolean() }),
  graph: z.strictObject({
    rootKey: z.string(),
    nodes: z.array(flowGraphNodeSchema),
    edges: z.array(flowGraphEdgeSchema),
    truncated: z.boolean(),
  }),
});
export type FlowGraphResponse = z.infer<typeof flowGraphResponseSchema>;

/** GET /api/flows/children. */
export const flowChildrenResponseSchema = z.strictObject({
  parentKey: z.string(),
  nodes: z.array(flowGraphNodeSchema),
  edges: z.array(flowGraphEdgeSchema),
  cursor: z.string().optional(),
});
export type FlowChildrenResponse = z.infer<typeof flowChildrenResponseSchema>;
