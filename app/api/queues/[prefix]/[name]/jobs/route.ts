import { z } from 'zod';
import type { JobActionResponse, JobListResponse } from '@/lib/api-types';
import { pageQuery, withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { jobStateSchema } from '@/lib/server/queue-page-input';
import { queueParams, queueTarget, requirePrefix, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

const query = pageQuery(100, 25).extend({ state: jobStateSchema.default('waiting') });

export const GET = withRoute(
  { role: 'viewer', params: queueParams, query },
  async ({ params, query }): Promise<JobListResponse> => {
    await requireQueue(params.prefix, params.name);
    return admin().jobs.list(params.prefix, params.name, query);
  },
);

/** bullmq's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;
/** A year: a longer delay from a console is a typo, not a plan. */
const MAX_DELAY_MS = 365 * 24 * 3_600_000;

const newJob = z
  .object({
    name: z.string().min(1).max(256),
    data: z.unknown().default({}),
    opts: z
      .object({
        // Job keys are split at ':', so an id with one could name another job.
        jobId: z
          .string()
          .min(1)
          .max(512)
          .regex(/^[^:]+$/, 'a job id cannot contain ":"')
          .optional(),
        delay: z.number().int().min(0).max(MAX_DELAY_MS).optional(),
        priority: z.number().int().min(0).max(MAX_PRIORITY).optional(),
        attempts: z.number().int().min(1).max(1_000).optional(),
        backoff: z
          .object({
            type: z.enum(['fixed', 'exponential']),
            delay: z.number().int().min(0).max(MAX_DELAY_MS),
          })
          .strict()
          .optional(),
        lifo: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Adds a job (the queue need not exist yet: its first job creates it); answers its id. */
export const POST = withRoute(
  {
    mutation: { action: 'job.add', target: queueTarget },
    params: queueParams,
    body: newJob,
  },
  async ({ params, body }): Promise<JobActionResponse> => {
    requirePrefix(params.prefix);
    const id = await admin().jobs.add(params.prefix, params.name, body);
    return { ok: true, id };
  },
);
