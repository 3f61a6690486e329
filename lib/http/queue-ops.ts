/** The queue page's operations: diagnosis, limits, clean, drain and obliterate answers. */
import { z } from 'zod';
import { rateLimitSchema } from './job-states';

const diagnosisReasonSchema = z.strictObject({
  code: z.enum([
    'paused',
    'no-workers',
    'rate-limited',
    'concurrency-full',
    'only-delayed',
    'only-waiting-children',
    'groups-held',
    'empty',
    'moving',
  ]),
  message: z.string(),
  ttlMs: z.number().optional(),
  nextDueAt: z.number().optional(),
  limit: z.number().optional(),
  active: z.number().optional(),
});

/** GET …/diagnose: why jobs do or do not move. */
export const queueDiagnosisSchema = z.strictObject({
  healthy: z.boolean(),
  reasons: z.array(diagnosisReasonSchema),
  checkedAt: z.number(),
});
export type QueueDiagnosis = z.infer<typeof queueDiagnosisSchema>;

/** What the live OxMQ workers report of their own `limiter` and `concurrency` options. */
const workerLimitsSchema = z.strictObject({
  reporting: z.number(),
  limiters: z.array(rateLimitSchema.extend({ workers: z.number() })),
  withoutLimiter: z.number(),
  concurrency: z.number(),
});
export type WorkerLimits = z.infer<typeof workerLimitsSchema>;

/** A rate limit fetches apply: `from` says which source each number comes from. */
const rateLimitInForceSchema = rateLimitSchema.extend({
  from: z.enum(['queue', 'workers', 'both']),
  workers: z.number(),
});
export type RateLimitInForce = z.infer<typeof rateLimitInForceSchema>;

/**
 * GET and POST …/limits. `rateLimit` and `globalConcurrency` are the queue-wide settings (what
 * POST changes); the workers' own options come from their heartbeats.
 */
export const queueLimitsSchema = z.strictObject({
  rateLimit: rateLimitSchema.nullable(),
  globalConcurrency: z.number().nullable(),
  rateLimitTtlMs: z.number(),
  workerLimits: workerLimitsSchema,
  rateLimitsInForce: z.array(rateLimitInForceSchema),
});
export type QueueLimits = z.infer<typeof queueLimitsSchema>;

export const queueCleanResponseSchema = z.strictObject({ removed: z.number() });
export type QueueCleanResponse = z.infer<typeof queueCleanResponseSchema>;

export const queueOkResponseSchema = z.strictObject({ ok: z.literal(true) });
export type QueueOkResponse = z.infer<typeof queueOkResponseSchema>;
