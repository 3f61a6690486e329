/**
 * The timing and backlog history the metrics pages chart (docs/metrics.md, "Timing history"):
 * one queue (GET /api/queues/:prefix/:name/history), summed over a page of queues
 * (GET /api/metrics/history), and the overview's sparklines (GET /api/metrics/sparklines).
 * Client components import only the types (lib/api-types.ts), never these schemas.
 */
import { HISTORY_RANGES, type HistoryRange } from 'oxmq/admin';
import { z } from 'zod';

const RANGES = Object.keys(HISTORY_RANGES) as [HistoryRange, ...HistoryRange[]];
const historyRangeSchema = z.enum(RANGES);
export type HistoryRangeName = z.infer<typeof historyRangeSchema>;

/** Longest job name a filter takes: names are the user's data, shown as plain text. */
const MAX_JOB_NAME_FILTER = 200;

/** `range` (default 1h) and an optional job `name` whose outcomes and timings alone to read. */
export const historyQuerySchema = z.object({
  range: historyRangeSchema.default('1h'),
  name: z.string().min(1).max(MAX_JOB_NAME_FILTER).optional(),
});

const timingSummarySchema = z.strictObject({
  count: z.number(),
  meanMs: z.number(),
  p50Ms: z.number(),
  p95Ms: z.number(),
  p99Ms: z.number(),
});
export type TimingSummary = z.infer<typeof timingSummarySchema>;

const historyPointSchema = z.strictObject({
  at: z.number(),
  completed: z.number(),
  failed: z.number(),
  retried: z.number(),
  wait: timingSummarySchema.nullable(),
  run: timingSummarySchema.nullable(),
  /** Jobs per state at the point's last backlog sample; null when none was taken. */
  backlog: z.record(z.string(), z.number()).nullable(),
});
export type HistoryPoint = z.infer<typeof historyPointSchema>;

const outcomes = {
  completed: z.number(),
  failed: z.number(),
  retried: z.number(),
  wait: timingSummarySchema.nullable(),
  run: timingSummarySchema.nullable(),
};

const historyNameSchema = z.strictObject({ name: z.string(), ...outcomes });
export type HistoryNameSummary = z.infer<typeof historyNameSchema>;

const queueHistorySchema = z.strictObject({
  range: historyRangeSchema,
  from: z.number(),
  to: z.number(),
  stepMs: z.number(),
  points: z.array(historyPointSchema),
  total: z.strictObject(outcomes),
  names: z.array(historyNameSchema),
  hasData: z.boolean(),
});
export type QueueHistory = z.infer<typeof queueHistorySchema>;

export const queueHistoryResponseSchema = queueHistorySchema.extend({
  prefix: z.string(),
  name: z.string(),
  /** The job name the outcomes and timings are narrowed to; null for the whole queue. */
  jobName: z.string().nullable(),
});
export type QueueHistoryResponse = z.infer<typeof queueHistoryResponseSchema>;

const queueRefSchema = z.strictObject({ prefix: z.string(), name: z.string() });

export const historyAcrossResponseSchema = queueHistorySchema.extend({
  jobName: z.string().nullable(),
  /** The queues summed: one page of the discovered queues. */
  queues: z.array(queueRefSchema),
  /** Queues discovered in all. */
  discovered: z.number(),
  page: z.number(),
  pageSize: z.number(),
  /** False when discovery hit its scan budget: there may be queues not summed. */
  complete: z.boolean(),
});
export type HistoryAcrossResponse = z.infer<typeof historyAcrossResponseSchema>;

const queueSparklineSchema = z.strictObject({
  prefix: z.string(),
  name: z.string(),
  completed: z.array(z.number()),
  failed: z.array(z.number()),
  retried: z.array(z.number()),
  recorded: z.boolean(),
});
export type QueueSparkline = z.infer<typeof queueSparklineSchema>;

export const historySparklinesResponseSchema = z.strictObject({
  from: z.number(),
  stepMs: z.number(),
  queues: z.array(queueSparklineSchema),
});
export type HistorySparklinesResponse = z.infer<typeof historySparklinesResponseSchema>;
