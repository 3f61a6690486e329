/**
 * Every job option, declared once: its type (JobsOptions is inferred from here), the names
 * OxMQ accepts, the flat spellings it rewrites (option-aliases.ts), the names it refuses
 * and why, and the checks with their messages (option-check.ts finds the first problem,
 * validateJobOptions in options.ts throws it as a ValidationError). The console builds its request schema from the same
 * fields (consoleJobOptionsSchema), so a new option is declared here, used where it acts, and
 * documented.
 *
 * Options are strict: an unknown name is refused by name rather than carried into Redis and
 * ignored there (bullmq stores and ignores it).
 */
import { z } from 'zod';
import { DEFAULTS } from '../defaults';
import { GROUP_KEY_PREFIX, GROUP_QUEUE_KEY_NAMES } from '../queue/keys';
import { TraceContext } from '../telemetry/trace-context';

const finite = (message: string) =>
  z.number({ error: message }).refine(Number.isFinite, { error: message });
const nonNegativeNumber = (message: string) => finite(message).refine((n) => n >= 0, message);
const positiveNumber = (message: string) => finite(message).refine((n) => n > 0, message);
const nonNegativeInteger = (name: string) => {
  const message = `${name} must be a non-negative integer`;
  return z.number({ error: message }).int({ error: message }).min(0, { error: message });
};
const positiveInteger = (message: string) =>
  z.number({ error: message }).int({ error: message }).min(1, { error: message });
const flag = (name: string) => z.boolean({ error: `${name} must be a boolean` });

/** Why a custom job id is refused, or undefined when bullmq and OxMQ accept it. */
function jobIdProblem(jobId: string): string | undefined {
  if (jobId.length === 0) return 'jobId must be a non-empty string';
  if (jobId === '0' || jobId.startsWith('0:')) return 'jobId cannot be "0" or start with "0:"';
  if (String(parseInt(jobId, 10)) === jobId) {
    return `Custom jobId cannot be an integer string (got "${jobId}")`;
  }
  // Job schedulers' ids are `repeat:<key>:<millis>`; any other ':' would break key parsing.
  if (jobId.includes(':') && jobId.split(':').length !== 3) {
    return `Custom jobId cannot contain ":" (got "${jobId}")`;
  }
  // A job's hash is `Q<jobId>`: these would be the keys of tenant groups (docs/redis-keys.md).
  if ((GROUP_QUEUE_KEY_NAMES as readonly string[]).includes(jobId)) {
    return `jobId "${jobId}" is reserved for tenant group keys`;
  }
  if (jobId.startsWith(GROUP_KEY_PREFIX)) {
    return `jobId "${jobId}" is reserved for tenant group keys`;
  }
  return undefined;
}

/** Longest tenant group id. */
const MAX_GROUP_ID_LENGTH = 128;
const GROUP_ID_PATTERN = /^[A-Za-z0-9_.-]+$/;
const groupIdMessage = (id: unknown) =>
  `group id must be 1..${MAX_GROUP_ID_LENGTH} characters of [A-Za-z0-9_.-] (got ${JSON.stringify(id)})`;

/** A tenant group id: 1..128 characters of [A-Za-z0-9_.-] (no `:`, so keys stay parseable). */
export const groupIdSchema = z
  .string({ error: (issue) => groupIdMessage(issue.input) })
  .max(MAX_GROUP_ID_LENGTH, { error: (issue) => groupIdMessage(issue.input) })
  .regex(GROUP_ID_PATTERN, { error: (issue) => groupIdMessage(issue.input) });

const backoffObject = z.strictObject(
  {
    /** `fixed`, `exponential`, or the name of a custom strategy given to the Worker. */
    type: z.string(),
    /** Base delay in ms. */
    delay: nonNegativeNumber('backoff.delay must be a non-negative number of ms').optional(),
    /** 0..1: the delay is drawn uniformly from [delay * (1 - jitter), delay]. */
    jitter: finite('backoff.jitter must be between 0 and 1')
      .refine((n) => n >= 0 && n <= 1, 'backoff.jitter must be between 0 and 1')
      .optional(),
    /** OxMQ extension: upper bound of an exponential delay, in ms. */
    maxDelay: positiveNumber('backoff.maxDelay must be a positive number of ms').optional(),
  },
  { error: 'backoff must be a number or { type, delay, jitter?, maxDelay? }' },
);

const keepJobs = (name: string) =>
  z.union(
    [
      z.boolean(),
      nonNegativeInteger(name),
      z.strictObject({
        /** Seconds. */
        age: nonNegativeNumber(`${name}.age must be a non-negative number`).optional(),
        count: nonNegativeNumber(`${name}.count must be a non-negative number`).optional(),
        /** Most deletions done by one finishing job. */
        limit: nonNegativeNumber(`${name}.limit must be a non-negative number`).optional(),
      }),
    ],
    { error: `${name} must be a boolean, a count or { age, count, limit }` },
  );

const deduplicationObject = z.strictObject(
  {
    id: z
      .string({ error: 'deduplication needs a non-empty string id' })
      .min(1, { error: 'deduplication needs a non-empty string id' }),
    ttl: positiveNumber('deduplication.ttl must be a positive number of ms').optional(),
    extend: flag('deduplication.extend').optional(),
    replace: flag('deduplication.replace').optional(),
    reschedule: flag('deduplication.reschedule').optional(),
  },
  { error: 'deduplication needs a non-empty string id' },
);

const durableObject = z.strictObject(
  {
    /** Replicas that must hold the add (at least 1). */
    replicas: positiveInteger('durable.replicas must be an integer of at least 1'),
    /** Longest wait in ms for them (at least 1; the add itself is not undone on timeout). */
    timeoutMs: positiveInteger('durable.timeoutMs must be a positive integer of ms'),
  },
  { error: 'durable must be an object { replicas, timeoutMs }' },
);

const telemetryObject = z.strictObject(
  {
    metadata: z.string({ error: 'telemetry.metadata must be a string' }).optional(),
    omitContext: flag('telemetry.omitContext').optional(),
  },
  { error: 'telemetry must be an object { metadata?, omitContext? }' },
);

const parentMessage = 'parent must be { id, queue: "<prefix>:<queueName>" }';
const parentObject = z.strictObject(
  {
    id: z.string({ error: parentMessage }).min(1, { error: parentMessage }),
    queue: z.string({ error: parentMessage }).includes(':', { error: parentMessage }),
  },
  { error: parentMessage },
);

const groupObject = z.strictObject({ id: groupIdSchema }, { error: 'group must be { id }' });

/** The options bullmq 6.7.0 defines that OxMQ implements, then OxMQ's own. */
export const JOB_OPTION_FIELDS = {
  jobId: z
    .string({ error: 'jobId must be a non-empty string' })
    .superRefine((id, ctx) => {
      const problem = jobIdProblem(id);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** Creation time (ms); defaults to now. */
  timestamp: finite('timestamp must be a number of ms').optional(),
  delay: nonNegativeNumber('delay must be a non-negative number of ms').optional(),
  /** 0 (none, runs first) or 1..2,097,151 (lower runs earlier). */
  priority: z
    .number({ error: `priority must be an integer between 0 and ${DEFAULTS.maxPriority}` })
    .int({ error: `priority must be an integer between 0 and ${DEFAULTS.maxPriority}` })
    .min(0, { error: `priority must be an integer between 0 and ${DEFAULTS.maxPriority}` })
    .max(DEFAULTS.maxPriority, {
      error: `priority must be an integer between 0 and ${DEFAULTS.maxPriority}`,
    })
    .optional(),
  lifo: flag('lifo').optional(),
  attempts: nonNegativeInteger('attempts').optional(),
  backoff: z
    .union([nonNegativeNumber('backoff must be a non-negative number of ms'), backoffObject], {
      error: 'backoff must be a number or { type, delay, jitter?, maxDelay? }',
    })
    .optional(),
  /** true deletes the job when it completes, a number keeps the newest n, or age/count. */
  removeOnComplete: keepJobs('removeOnComplete').optional(),
  /** The same for failed jobs. */
  removeOnFail: keepJobs('removeOnFail').optional(),
  keepLogs: nonNegativeInteger('keepLogs').optional(),
  stackTraceLimit: nonNegativeInteger('stackTraceLimit').optional(),
  /** Largest accepted size of the data JSON, in bytes. */
  sizeLimit: nonNegativeInteger('sizeLimit').optional(),
  /**
   * bullmq's trace propagation: `metadata` is the context a `telemetry` adapter serialized
   * (stored as `tm`), `omitContext` keeps the producer's context out of the job (`omc`).
   */
  telemetry: telemetryObject.optional(),
  failParentOnFailure: flag('failParentOnFailure').optional(),
  continueParentOnFailure: flag('continueParentOnFailure').optional(),
  ignoreDependencyOnFailure: flag('ignoreDependencyOnFailure').optional(),
  removeDependencyOnFailure: flag('removeDependencyOnFailure').optional(),
  /**
   * One job per deduplication id at a time. Without ttl the window lasts until that job
   * finishes; with ttl it expires after ttl ms (extend: every duplicate restarts it). replace
   * (debounce): a duplicate replaces the owner while the owner is still delayed. reschedule: a
   * duplicate moves a still-delayed owner to the duplicate's due time.
   */
  deduplication: deduplicationObject.optional(),
  /** Makes the job a child of an existing job: `queue` is `<prefix>:<queueName>` of the parent. */
  parent: parentObject.optional(),
  /** OxMQ extension: W3C trace context the job's spans continue. */
  traceparent: z
    .string({ error: 'traceparent must be a string' })
    .superRefine((traceparent, ctx) => {
      try {
        TraceContext.of(traceparent);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    })
    .optional(),
  tracestate: z.string({ error: 'tracestate must be a string' }).optional(),
  /**
   * OxMQ extension, tenant group: the job waits in its group's own line, groups take turns at
   * the workers, and each group can have its own concurrency, rate limit and pause switch (see
   * Queue.setGroupConcurrency & co). Grouped jobs cannot have a priority.
   */
  group: groupObject.optional(),
  /**
   * OxMQ, on replicated Redis (Sentinel, Cluster): after the add, wait (Redis WAIT) until
   * `replicas` replicas hold it or `timeoutMs` passes; the returned job's `durability` says how
   * many confirmed. Without it an acknowledged add can be lost when the master fails before a
   * replica got it (docs/scaling.md). Not stored with the job.
   */
  durable: durableObject.optional(),
};

/**
 * Flat spellings accepted on input and rewritten to the fields above before anything is
 * validated or stored (option-aliases.ts says how), so a bullmq reader sees its own options.
 */
export const JOB_OPTION_ALIASES = {
  /** Flat spelling of `group: { id }`. */
  groupKey: groupIdSchema.optional(),
  /** Flat spelling of `deduplication: { id }`. */
  deduplicationId: z.string().optional(),
  /** Debounce window in ms (needs a deduplication id): `deduplication` in replace + extend mode. */
  debounceDuration: positiveNumber('debounceDuration must be a positive number of ms').optional(),
};

/** Options bullmq knows that a producer may not set on OxMQ, and what to do instead. */
export const REFUSED_JOB_OPTIONS: Readonly<Record<string, string>> = {
  repeat:
    'the repeat option (legacy repeatable jobs) does nothing in bullmq 6: use queue.upsertJobScheduler',
  repeatJobKey: 'repeatJobKey is set by job schedulers only: use queue.upsertJobScheduler',
  prevMillis: 'prevMillis is set by job schedulers only: use queue.upsertJobScheduler',
  debounce: 'debounce was removed in bullmq 6: use deduplication (debounce mode: replace + extend)',
};

/** Names refused inside an option object, by the option's name. */
export const REFUSED_OPTION_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  deduplication: {
    keepLastIfActive:
      'OxMQ does not implement keeping the last job while the owner is active; drop it, or use replace (debounce) with a delay',
  },
};

const FAILURE_POLICIES = [
  'failParentOnFailure',
  'continueParentOnFailure',
  'ignoreDependencyOnFailure',
  'removeDependencyOnFailure',
] as const;

type CanonicalOptions = z.input<z.ZodObject<typeof JOB_OPTION_FIELDS>>;

/** Rules between options; each returns the message of the first broken one. */
export const CROSS_FIELD_RULES: ((opts: CanonicalOptions) => string | undefined)[] = [
  (opts) =>
    FAILURE_POLICIES.filter((policy) => opts[policy]).length > 1
      ? `At most one of ${FAILURE_POLICIES.join(', ')} can be set`
      : undefined,
  // A group's line is first in, first out (one list per group); ordering it by priority would
  // cost every grouped add and fetch a sorted set. The two ways to jump a group's line:
  (opts) =>
    opts.group !== undefined && opts.priority !== undefined && opts.priority > 0
      ? 'priority is not supported for grouped jobs: a group runs its jobs in the order they were added. ' +
        "To run one job ahead of its group's line, add it with lifo: true; for a lane of urgent " +
        'work, give it its own group (for example "<group id>-urgent") with its own concurrency.'
      : undefined,
  (opts) =>
    opts.deduplication?.extend && opts.deduplication.ttl === undefined
      ? 'deduplication.extend needs a ttl'
      : undefined,
  (opts) =>
    opts.deduplication?.replace && opts.deduplication.reschedule
      ? 'deduplication.replace and reschedule cannot be combined'
      : undefined,
  (opts) =>
    opts.deduplication !== undefined && opts.parent !== undefined
      ? 'deduplication cannot be combined with a parent'
      : undefined,
  (opts) =>
    opts.tracestate !== undefined && opts.traceparent === undefined
      ? 'tracestate needs a traceparent'
      : undefined,
];

/** The canonical options (aliases already rewritten), with the rules between them. */
export const jobOptionsSchema = z.strictObject(JOB_OPTION_FIELDS).superRefine((opts, ctx) => {
  for (const rule of CROSS_FIELD_RULES) {
    const message = rule(opts);
    if (message) ctx.addIssue({ code: 'custom', message });
  }
});

/** Options for one job (bullmq's JobsOptions, plus OxMQ's extensions and flat spellings). */
export type JobsOptions = z.input<
  z.ZodObject<typeof JOB_OPTION_FIELDS & typeof JOB_OPTION_ALIASES>
>;
export type BackoffOptions = z.input<typeof backoffObject>;
export type DeduplicationOptions = z.input<typeof deduplicationObject>;
export type GroupOptions = z.input<typeof groupObject>;
export type DurableOptions = z.input<typeof durableObject>;
export type JobTelemetryOptions = z.input<typeof telemetryObject>;
/** removeOnComplete / removeOnFail: true deletes, a number keeps the newest n, or age/count. */
export type KeepJobs = z.input<ReturnType<typeof keepJobs>>;

/**
 * The options the console's "add a job" form may set, checked by the same declarations, with
 * two limits of its own: a delay over a year or more than 1,000 attempts from a form is a typo.
 */
const YEAR_MS = 365 * 24 * 3_600_000;
export const consoleJobOptionsSchema = z.strictObject({
  jobId: JOB_OPTION_FIELDS.jobId,
  delay: JOB_OPTION_FIELDS.delay.refine(
    (delay) => delay === undefined || delay <= YEAR_MS,
    'delay from the console is at most a year',
  ),
  priority: JOB_OPTION_FIELDS.priority,
  attempts: JOB_OPTION_FIELDS.attempts.refine(
    (attempts) => attempts === undefined || attempts <= 1_000,
    'attempts from the console is at most 1000',
  ),
  // A form offers the two built-in strategies; custom ones need a worker's code.
  backoff: backoffObject.extend({ type: z.enum(['fixed', 'exponential']) }).optional(),
  lifo: JOB_OPTION_FIELDS.lifo,
});
export type ConsoleJobOptions = z.input<typeof consoleJobOptionsSchema>;
