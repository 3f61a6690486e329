/** One queue as the queue list and the queue page show it (GET /api/queues, …/:prefix/:name). */
import { z } from 'zod';
import { queueCountStateSchema, rateLimitSchema } from './job-states';
import { consoleLinksSchema } from './session';

const queueProblemSchema = z.strictObject({
  kind: z.enum([
    'no-worker',
    'paused',
    'rate-limited',
    'old-backlog',
    'failure-spike',
    'stalled-recently',
    'workers-missing-heartbeats',
  ]),
  severity: z.enum(['critical', 'warning', 'info']),
  message: z.string(),
});
export type QueueProblem = z.infer<typeof queueProblemSchema>;
export type QueueProblemSeverity = QueueProblem['severity'];

const queueMetricsSeriesSchema = z.strictObject({
  perMinute: z.array(z.number()),
  pending: z.number(),
  pendingSince: z.number().nullable(),
  total: z.number(),
});
export type QueueMetricsSeries = z.infer<typeof queueMetricsSeriesSchema>;

export const queueOverviewSchema = z.strictObject({
  prefix: z.string(),
  name: z.string(),
  counts: z.record(queueCountStateSchema, z.number()),
  paused: z.boolean(),
  rateLimit: rateLimitSchema.nullable(),
  rateLimited: z.boolean(),
  rateLimitTtlMs: z.number(),
  globalConcurrency: z.number().nullable(),
  workers: z.array(
    z.strictObject({
      id: z.string().optional(),
      workerName: z.string().optional(),
      addr: z.string().optional(),
      age: z.number().optional(),
    }),
  ),
  metrics: z.strictObject({
    completed: queueMetricsSeriesSchema,
    failed: queueMetricsSeriesSchema,
  }),
  version: z.string().nullable(),
  oldestWaitingAt: z.number().nullable(),
  problems: z.array(queueProblemSchema),
});
export type QueueOverview = z.infer<typeof queueOverviewSchema>;
export type QueueOverviewResponse = QueueOverview;

export const queueListResponseSchema = z.strictObject({
  queues: z.array(queueOverviewSchema),
  /** Queues discovered in total (this response holds one page of them). */
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  /** False when discovery hit its scan budget: there may be queues not listed. */
  complete: z.boolean(),
  /** Whether the server refuses mutations (OXMQ_READ_ONLY). */
  readOnly: z.boolean(),
  links: consoleLinksSchema,
});
export type QueueListResponse = z.infer<typeof queueListResponseSchema>;

/** POST …/pause and …/resume. */
export const queueActionResponseSchema = z.strictObject({
  prefix: z.string(),
  name: z.string(),
  paused: z.boolean(),
});
export type QueueActionResponse = z.infer<typeof queueActionResponseSchema>;
