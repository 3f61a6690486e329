/** GET …/groups and the answers of a group's actions (pause, resume, concurrency, rate limit). */
import { z } from 'zod';
import { jobRowSchema } from './job-row';
import { rateLimitSchema } from './job-states';

export const groupInfoSchema = z.strictObject({
  id: z.string(),
  waiting: z.number(),
  active: z.number(),
  paused: z.boolean(),
  concurrency: z.number().nullable(),
  rateLimit: rateLimitSchema.nullable(),
  rateLimitTtl: z.number(),
});
export type GroupInfo = z.infer<typeof groupInfoSchema>;

export const groupPageSchema = z.strictObject({
  groups: z.array(groupInfoSchema),
  cursor: z.string(),
  defaults: z.strictObject({
    concurrency: z.number().nullable(),
    rateLimit: rateLimitSchema.nullable(),
  }),
});
export type GroupPage = z.infer<typeof groupPageSchema>;

/** GET …/groups/:groupId/jobs: a page of the group's line and its running jobs. */
export const groupJobsSchema = z.strictObject({
  groupId: z.string(),
  waiting: z.array(jobRowSchema),
  waitingTotal: z.number(),
  active: z.array(jobRowSchema),
  activeTotal: z.number(),
  page: z.number(),
  pageSize: z.number(),
});
export type GroupJobs = z.infer<typeof groupJobsSchema>;
