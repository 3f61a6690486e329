/** The job page: one job (data, opts, return value redacted), its logs, children and timeline. */
import { z } from 'zod';
import { jobStateSchema } from './job-states';
import { progressSchema } from './job-row';

const jobLinkRefSchema = z.strictObject({
  key: z.string(),
  prefix: z.string(),
  queueName: z.string(),
  id: z.string(),
});
export type JobLinkRef = z.infer<typeof jobLinkRefSchema>;

const jobChildrenPageSchema = z.strictObject({
  processed: z.array(jobLinkRefSchema),
  unprocessed: z.array(jobLinkRefSchema),
  failed: z.array(jobLinkRefSchema),
  ignored: z.array(jobLinkRefSchema),
  counts: z.strictObject({
    processed: z.number(),
    unprocessed: z.number(),
    failed: z.number(),
    ignored: z.number(),
  }),
});

/** GET …/jobs/:id. The trace context headers are not answered; the trace id and its link are. */
export const jobDetailResponseSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  state: jobStateSchema,
  data: z.unknown(),
  opts: z.record(z.string(), z.unknown()),
  progress: progressSchema,
  returnvalue: z.unknown(),
  failedReason: z.string().nullable(),
  stacktrace: z.array(z.string()),
  attemptsMade: z.number(),
  attemptsStarted: z.number(),
  stalledCounter: z.number(),
  timestamp: z.number(),
  processedOn: z.number().nullable(),
  finishedOn: z.number().nullable(),
  delay: z.number(),
  priority: z.number(),
  processedBy: z.string().nullable(),
  parent: jobLinkRefSchema.nullable(),
  traceId: z.string().nullable(),
  prefix: z.string(),
  queueName: z.string(),
  /** Sensitive key names redacted (normalised), so the page can say what it hides. */
  redactedKeys: z.array(z.string()),
  /** The trace viewer's page for `traceId` (OXMQ_TRACE_URL); null when either is missing. */
  traceUrl: z.string().nullable(),
  children: jobChildrenPageSchema,
});
export type JobDetailResponse = z.infer<typeof jobDetailResponseSchema>;

/** GET …/jobs/:id/logs. */
export const jobLogsResponseSchema = z.strictObject({
  lines: z.array(z.strictObject({ index: z.number(), text: z.string() })),
  count: z.number(),
  page: z.number(),
  pageSize: z.number(),
});
export type JobLogsResponse = z.infer<typeof jobLogsResponseSchema>;

const jobTimelineEntrySchema = z.strictObject({
  id: z.string(),
  at: z.number(),
  event: z.string(),
  prev: z.string().optional(),
  attempt: z.number(),
  detail: z.string().optional(),
  source: z.enum(['stream', 'hash']),
});
export type JobTimelineEntry = z.infer<typeof jobTimelineEntrySchema>;

/** GET …/jobs/:id/timeline. */
export const jobTimelineResponseSchema = z.strictObject({
  entries: z.array(jobTimelineEntrySchema),
  scanned: z.number(),
  reachesCreation: z.boolean(),
  capped: z.boolean(),
});
export type JobTimelineResponse = z.infer<typeof jobTimelineResponseSchema>;

/** POST on a job (retry, promote, remove, …); duplicate answers the new job's id. */
export const jobActionResponseSchema = z.strictObject({
  ok: z.literal(true),
  id: z.string().optional(),
});
export type JobActionResponse = z.infer<typeof jobActionResponseSchema>;
