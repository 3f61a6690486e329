/**
 * The job option names OxMQ accepts, and the ones it refuses by name. Options are strict: an
 * unknown name is a ValidationError naming it, rather than a typo silently carried into Redis
 * and ignored there (bullmq would store it and do nothing with it).
 */
import { ValidationError } from '../errors';

/** bullmq 6.7.0's JobsOptions that OxMQ implements, then OxMQ's own. */
const ACCEPTED = new Set([
  'jobId',
  'timestamp',
  'delay',
  'priority',
  'lifo',
  'attempts',
  'backoff',
  'removeOnComplete',
  'removeOnFail',
  'keepLogs',
  'stackTraceLimit',
  'sizeLimit',
  'telemetry',
  'failParentOnFailure',
  'continueParentOnFailure',
  'ignoreDependencyOnFailure',
  'removeDependencyOnFailure',
  'deduplication',
  'parent',
  // OxMQ extensions.
  'traceparent',
  'tracestate',
  'group',
  'durable',
]);

/** Options bullmq knows that a producer may not set on OxMQ, and what to do instead. */
const REFUSED: Record<string, string> = {
  repeat:
    'the repeat option (legacy repeatable jobs) does nothing in bullmq 6: use queue.upsertJobScheduler',
  repeatJobKey: 'repeatJobKey is set by job schedulers only: use queue.upsertJobScheduler',
  prevMillis: 'prevMillis is set by job schedulers only: use queue.upsertJobScheduler',
  debounce: 'debounce was removed in bullmq 6: use deduplication (debounce mode: replace + extend)',
};

/** Throws a ValidationError naming the first option (of `opts`, at `path`) outside `allowed`. */
export function rejectUnknownKeys(
  value: object,
  allowed: ReadonlySet<string>,
  path: string,
  refused: Record<string, string> = {},
): void {
  for (const key of Object.keys(value)) {
    if ((value as Record<string, unknown>)[key] === undefined) continue;
    const reason = refused[key];
    if (reason) throw new ValidationError(`Unsupported ${path} "${key}": ${reason}`);
    if (!allowed.has(key)) {
      throw new ValidationError(`Unknown ${path} "${key}" (known: ${[...allowed].join(', ')})`);
    }
  }
}

/** The top-level check of a job's options. */
export function rejectUnknownJobOptions(opts: object): void {
  rejectUnknownKeys(opts, ACCEPTED, 'job option', REFUSED);
}

/**
 * The options of a job read back from Redis that a new add accepts: for copying a job whose
 * options a foreign producer wrote (bullmq keeps unknown options), where refusing the copy for
 * a field nobody reads would help no one. Scheduler-owned and refused names are dropped too.
 */
export function acceptedJobOptions<T extends object>(opts: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(opts).filter(([key]) => ACCEPTED.has(key)),
  ) as Partial<T>;
}
