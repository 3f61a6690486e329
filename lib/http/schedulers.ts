/** GET …/schedulers and the answers of a scheduler's actions. */
import { z } from 'zod';
import { jobStateSchema } from './job-states';

const schedulerIterationSchema = z.strictObject({
  jobId: z.string(),
  state: jobStateSchema,
});
export type SchedulerIteration = z.infer<typeof schedulerIterationSchema>;

const schedulerRowSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  pattern: z.string().nullable(),
  every: z.number().nullable(),
  tz: z.string().nullable(),
  next: z.number().nullable(),
  paused: z.boolean(),
  pausedAt: z.number().nullable(),
  limit: z.number().nullable(),
  iterationCount: z.number().nullable(),
  nextCount: z.number().nullable(),
  startDate: z.number().nullable(),
  endDate: z.number().nullable(),
  pending: schedulerIterationSchema.nullable(),
  previous: schedulerIterationSchema.nullable(),
});
export type SchedulerRow = z.infer<typeof schedulerRowSchema>;

export const schedulerPageSchema = z.strictObject({
  schedulers: z.array(schedulerRowSchema),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
});
export type SchedulerPage = z.infer<typeof schedulerPageSchema>;

/** POST …/schedulers/:id/<action>: the new job (run), or the next run (resume, edit). */
export const schedulerActionResponseSchema = z.strictObject({
  ok: z.literal(true),
  jobId: z.string().optional(),
  next: z.number().optional(),
});
export type SchedulerActionResponse = z.infer<typeof schedulerActionResponseSchema>;
