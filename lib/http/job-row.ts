/** A job as a list shows it (GET …/jobs, …/search, the streamed search), progress and reason redacted. */
import { z } from 'zod';
import { queueCountStateSchema } from './job-states';

/** A progress value: a number, or an object the processor reported. */
export const progressSchema = z.union([
  z.number(),
  z.custom<object>((value) => typeof value === 'object' && value !== null, 'an object'),
]);

export const jobRowSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  timestamp: z.number(),
  attemptsMade: z.number(),
  progress: progressSchema,
  processedOn: z.number().nullable(),
  finishedOn: z.number().nullable(),
  delay: z.number(),
  failedReason: z.string().nullable(),
});
export type JobRow = z.infer<typeof jobRowSchema>;

export const jobListResponseSchema = z.strictObject({
  state: queueCountStateSchema,
  jobs: z.array(jobRowSchema),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
});
export type JobListResponse = z.infer<typeof jobListResponseSchema>;

export const jobSearchModeSchema = z.enum(['name', 'text', 'path']);

/** A search's match: a row, with the job's state when it was an id lookup (any state holds it). */
const jobSearchMatchSchema = jobRowSchema.extend({ state: z.string().optional() });

/** A search: by id (a direct lookup: `scanned` 0) or a bounded scan of one state. */
export const jobSearchResponseSchema = z.strictObject({
  mode: z.enum(['id', ...jobSearchModeSchema.options]),
  state: queueCountStateSchema,
  order: z.enum(['newest', 'oldest']),
  matches: z.array(jobSearchMatchSchema),
  scanned: z.number(),
  from: z.number(),
  to: z.number(),
  total: z.number(),
  next: z.number().nullable(),
  bytesRead: z.number(),
  tooLarge: z.number(),
  stoppedBy: z.enum(['jobs', 'bytes', 'matches']).nullable(),
});
export type JobSearchResponse = z.infer<typeof jobSearchResponseSchema>;

/** GET /api/jobs/find: where a job id exists among the discovered queues. */
const jobLocationSchema = z.strictObject({
  prefix: z.string(),
  queue: z.string(),
  id: z.string(),
  jobName: z.string(),
  state: z.string(),
});
export type JobLocation = z.infer<typeof jobLocationSchema>;

export const jobFindResponseSchema = z.strictObject({ locations: z.array(jobLocationSchema) });
export type JobFindResponse = z.infer<typeof jobFindResponseSchema>;
