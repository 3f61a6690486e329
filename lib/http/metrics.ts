/** Completed and failed per minute: per queue (GET /api/metrics, …/metrics) and summed (…/total). */
import { z } from 'zod';

const metricsPointSchema = z.strictObject({ t: z.number(), count: z.number() });

const metricsTimelineSchema = z.strictObject({
  points: z.array(metricsPointSchema),
  pending: z.number(),
  pendingSince: z.number().nullable(),
  total: z.number(),
  recorded: z.boolean(),
});
export type MetricsTimeline = z.infer<typeof metricsTimelineSchema>;

const queueMetricsSchema = z.strictObject({
  prefix: z.string(),
  name: z.string(),
  completed: metricsTimelineSchema,
  failed: metricsTimelineSchema,
});
export type QueueMetrics = z.infer<typeof queueMetricsSchema>;

export const queueMetricsResponseSchema = queueMetricsSchema.extend({ minutes: z.number() });
export type QueueMetricsResponse = z.infer<typeof queueMetricsResponseSchema>;

export const metricsListResponseSchema = z.strictObject({
  queues: z.array(queueMetricsSchema),
  minutes: z.number(),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  complete: z.boolean(),
});
export type MetricsListResponse = z.infer<typeof metricsListResponseSchema>;

export const totalThroughputResponseSchema = z.strictObject({
  completed: metricsTimelineSchema,
  failed: metricsTimelineSchema,
  queues: z.number(),
  queuesWithMetrics: z.number(),
  minutes: z.number(),
});
export type TotalThroughputResponse = z.infer<typeof totalThroughputResponseSchema>;
