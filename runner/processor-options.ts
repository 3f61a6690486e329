/**
 * What a processor module may set in `export const options`: a subset of the engine's worker
 * options plus `sandbox`. Validated strictly, so a misspelt option is an error at startup
 * rather than a default silently kept.
 */
import { z } from 'zod';
import type { KeepJobs, RateLimiterOptions } from 'oxmq';

export type SandboxMode = false | 'process' | 'thread';

export interface ProcessorOptions {
  /** Jobs processed at once (default 1). */
  concurrency?: number;
  /** At most `max` job starts per `duration` ms, across every worker of the queue. */
  limiter?: RateLimiterOptions;
  /**
   * false (default): the processor runs in the runner's process. 'process': in child processes,
   * one per concurrent job slot; 'thread': in worker threads. A sandboxed processor that crashes
   * fails its job, not the runner.
   */
  sandbox?: SandboxMode;
  /** Key prefix of the queue; default the runner's OXMQ_PREFIX. */
  prefix?: string;
  /** How long a job's lock lives without renewal (ms). */
  lockDuration?: number;
  /** How often active jobs are checked for lost locks (ms). */
  stalledInterval?: number;
  /** Stalls a job survives before it is failed. */
  maxStalledCount?: number;
  removeOnComplete?: KeepJobs;
  removeOnFail?: KeepJobs;
  /** Per-minute completed/failed counts kept for the console's metrics. */
  metrics?: { maxDataPoints: number };
  /** The worker's name, shown by consoles and written to processed jobs. */
  name?: string;
  /** Fail jobs that were started more than this many times. */
  maxStartedAttempts?: number;
  /**
   * Batch mode: the module's default export gets an array of jobs and returns one result per
   * job (an Error fails that job alone); see BatchWorker. `size`: most jobs per batch (default
   * 100); `maxBytes`: byte budget of a batch's data (default none). Not with `sandbox`.
   */
  batch?: { size?: number; maxBytes?: number };
}

const positiveInt = z.number().int().min(1, 'must be an integer of at least 1');
const nonNegativeInt = z.number().int().min(0, 'must be an integer of at least 0');
const positiveMs = z.number().positive('must be a number of ms greater than 0');

const keepJobs = z.union([
  z.boolean(),
  nonNegativeInt,
  z.strictObject({
    age: nonNegativeInt.optional(),
    count: nonNegativeInt.optional(),
    limit: positiveInt.optional(),
  }),
]);

export const PROCESSOR_OPTIONS_SCHEMA = z
  .strictObject({
    concurrency: positiveInt.optional(),
    limiter: z.strictObject({ max: positiveInt, duration: positiveMs }).optional(),
    sandbox: z
      .union([z.literal(false), z.literal('process'), z.literal('thread')], {
        error: "must be false, 'process' or 'thread'",
      })
      .optional(),
    prefix: z
      .string()
      .regex(/^[^\s*?[\]\\]+$/, 'must be a key prefix without spaces, * ? [ ] or \\')
      .optional(),
    lockDuration: positiveMs.optional(),
    stalledInterval: positiveMs.optional(),
    maxStalledCount: nonNegativeInt.optional(),
    removeOnComplete: keepJobs.optional(),
    removeOnFail: keepJobs.optional(),
    metrics: z.strictObject({ maxDataPoints: positiveInt }).optional(),
    name: z.string().min(1, 'must be a non-empty string').optional(),
    maxStartedAttempts: nonNegativeInt.optional(),
    batch: z
      .strictObject({
        size: positiveInt.max(10_000, 'must be at most 10000').optional(),
        maxBytes: nonNegativeInt.optional(),
      })
      .optional(),
  })
  .refine((options) => !(options.batch && options.sandbox), {
    message: 'batch and sandbox cannot be combined (a batch runs in the runner process)',
    path: ['batch'],
  }) satisfies z.ZodType<ProcessorOptions>;

/** Turns zod issues into one line per problem: `options.concurrency: must be ...`. */
export function describeOptionIssues(error: z.ZodError, root = 'options'): string[] {
  return error.issues.flatMap((issue) => {
    const at = [root, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => `${at}.${key}: unknown option`);
    return [`${at}: ${issue.message}`];
  });
}
