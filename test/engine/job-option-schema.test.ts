/**
 * One declaration of the job options (engine/job/option-schema.ts): every option it declares is
 * accepted with a good value and refused, by name, with a bad one; the flat spellings rewrite
 * to the canonical options; the console's form schema refuses what the engine refuses for the
 * same fields. A new option must come with its samples here, or this test fails.
 */
import { describe, expect, it } from 'vitest';
import { consoleJobOptionsSchema, jobOptionsSchema, ValidationError, type JobsOptions } from 'oxmq';
import {
  JOB_OPTION_ALIASES,
  JOB_OPTION_FIELDS,
  resolveOptionAliases,
  validateJobOptions,
} from 'oxmq/internals';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** A good and a bad value of each option, and a word the refusal must contain. */
const SAMPLES: Record<keyof typeof JOB_OPTION_FIELDS, [good: unknown, bad: unknown, says: string]> =
  {
    jobId: ['order-7', '42', 'integer'],
    timestamp: [Date.now(), 'now', 'timestamp'],
    delay: [1_000, -1, 'delay'],
    priority: [5, 2_097_152, 'priority'],
    lifo: [true, 'yes', 'lifo'],
    attempts: [3, 1.5, 'attempts'],
    backoff: [
      { type: 'exponential', delay: 100, jitter: 0.5 },
      { type: 'fixed', jitter: 2 },
      'jitter',
    ],
    removeOnComplete: [{ age: 60, count: 10 }, { age: -1 }, 'removeOnComplete.age'],
    removeOnFail: [100, -1, 'removeOnFail'],
    keepLogs: [10, -1, 'keepLogs'],
    stackTraceLimit: [5, 'x', 'stackTraceLimit'],
    sizeLimit: [1_024, -5, 'sizeLimit'],
    telemetry: [{ metadata: 'm', omitContext: true }, { metadata: 5 }, 'telemetry.metadata'],
    failParentOnFailure: [true, 1, 'failParentOnFailure'],
    continueParentOnFailure: [true, 1, 'continueParentOnFailure'],
    ignoreDependencyOnFailure: [true, 1, 'ignoreDependencyOnFailure'],
    removeDependencyOnFailure: [true, 1, 'removeDependencyOnFailure'],
    deduplication: [{ id: 'd', ttl: 1_000, extend: true }, { id: '' }, 'deduplication'],
    parent: [{ id: 'p', queue: 'bull:parents' }, { id: 'p', queue: 'parents' }, 'parent'],
    traceparent: [TRACEPARENT, 'not-a-trace', 'traceparent'],
    tracestate: ['vendor=1', 5, 'tracestate'],
    group: [{ id: 'tenant-1' }, { id: 'a:b' }, 'group id'],
    durable: [{ replicas: 1, timeoutMs: 100 }, { replicas: 0, timeoutMs: 100 }, 'durable.replicas'],
  };

function refusal(opts: Record<string, unknown>): Error | undefined {
  try {
    validateJobOptions(opts as JobsOptions);
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

describe('the job options declaration', () => {
  it('has samples for every declared option (a new option needs them)', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(Object.keys(JOB_OPTION_FIELDS).sort());
  });

  for (const [name, [good, bad, says]] of Object.entries(SAMPLES)) {
    it(`${name}: accepts a good value, refuses a bad one saying why`, () => {
      const extra = name === 'tracestate' ? { traceparent: TRACEPARENT } : {};
      expect(refusal({ ...extra, [name]: good })).toBeUndefined();
      const error = refusal({ ...extra, [name]: bad });
      expect(error).toBeInstanceOf(ValidationError);
      expect(error!.message).toContain(says);
      // The exported schema (for checking options where they come in) agrees.
      expect(jobOptionsSchema.safeParse({ ...extra, [name]: good }).success).toBe(true);
      expect(jobOptionsSchema.safeParse({ ...extra, [name]: bad }).success).toBe(false);
    });
  }

  it('refuses a name it does not declare, listing the ones it does', () => {
    const error = refusal({ atempts: 3 });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error!.message).toContain('"atempts"');
    for (const name of Object.keys(JOB_OPTION_FIELDS)) expect(error!.message).toContain(name);
  });

  it('rewrites every flat spelling to canonical options that pass the same checks', () => {
    const samples: Record<keyof typeof JOB_OPTION_ALIASES, [JobsOptions, JobsOptions]> = {
      groupKey: [{ groupKey: 'tenant-1' }, { group: { id: 'tenant-1' } }],
      deduplicationId: [{ deduplicationId: 'd' }, { deduplication: { id: 'd' } }],
      debounceDuration: [
        { deduplicationId: 'd', debounceDuration: 500 },
        { deduplication: { id: 'd', ttl: 500, extend: true, replace: true }, delay: 500 },
      ],
    };
    expect(Object.keys(samples).sort()).toEqual(Object.keys(JOB_OPTION_ALIASES).sort());
    for (const [given, canonical] of Object.values(samples)) {
      const resolved = resolveOptionAliases(given);
      expect(resolved).toEqual(canonical);
      expect(refusal(resolved as Record<string, unknown>)).toBeUndefined();
    }
    // Unrewritten, a flat spelling is not a stored option.
    expect(refusal({ groupKey: 'tenant-1' })).toBeInstanceOf(ValidationError);
  });

  it('gives the console form the same checks for the fields it offers', () => {
    for (const name of Object.keys(consoleJobOptionsSchema.shape)) {
      const [good, bad] = SAMPLES[name as keyof typeof SAMPLES];
      const formGood = name === 'backoff' ? { type: 'fixed', delay: 100 } : good;
      expect(consoleJobOptionsSchema.safeParse({ [name]: formGood }).success, name).toBe(true);
      expect(consoleJobOptionsSchema.safeParse({ [name]: bad }).success, name).toBe(false);
    }
    // Its own limits: what a person types by hand, not what code may do.
    expect(consoleJobOptionsSchema.safeParse({ attempts: 1_001 }).success).toBe(false);
    expect(consoleJobOptionsSchema.safeParse({ backoff: { type: 'custom' } }).success).toBe(false);
    expect(consoleJobOptionsSchema.safeParse({ sizeLimit: 10 }).success).toBe(false);
  });
});
