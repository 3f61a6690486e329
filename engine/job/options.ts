/**
 * Job options at the boundaries: validation (the declarations are in engine/job/option-schema.ts),
 * how options are stored in the job hash (bullmq's short keys), and the job data's JSON.
 */
import { ValidationError } from '../errors';
import { jobOptionsProblem } from './option-check';
import {
  groupIdSchema,
  JOB_OPTION_FIELDS,
  type JobsOptions,
  type BackoffOptions,
  type JobTelemetryOptions,
} from './option-schema';
import { TraceContext } from '../telemetry/trace-context';

export type {
  BackoffOptions,
  DeduplicationOptions,
  DurableOptions,
  GroupOptions,
  JobsOptions,
  JobTelemetryOptions,
  KeepJobs,
} from './option-schema';

/** Options stored in the hash use these short keys (docs/redis-keys.md); everything else keeps its name. */
const SHORT_KEYS: Record<string, string> = {
  deduplication: 'de',
  failParentOnFailure: 'fpof',
  continueParentOnFailure: 'cpof',
  ignoreDependencyOnFailure: 'idof',
  removeDependencyOnFailure: 'rdof',
  keepLogs: 'kl',
};
const LONG_KEYS: Record<string, string> = Object.fromEntries(
  Object.entries(SHORT_KEYS).map(([long, short]) => [short, long]),
);

/** Fields kept in their own hash fields rather than in `opts`. */
const HASH_FIELD_OPTIONS = new Set(['traceparent', 'tracestate']);

export function normalizeBackoff(backoff: JobsOptions['backoff']): BackoffOptions | undefined {
  if (backoff === undefined) return undefined;
  if (typeof backoff === 'number') return { type: 'fixed', delay: backoff };
  return backoff;
}

/** The opts object as it is written to Redis (bullmq short keys, attempts defaulted to 0). */
export function encodeOptions(opts: JobsOptions): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) {
    if (value === undefined || HASH_FIELD_OPTIONS.has(key)) continue;
    if (key === 'telemetry' || key === 'durable') continue;
    encoded[SHORT_KEYS[key] ?? key] = value;
  }
  // bullmq flattens the telemetry object into two short keys.
  if (opts.telemetry?.metadata !== undefined) encoded.tm = opts.telemetry.metadata;
  if (opts.telemetry?.omitContext !== undefined) encoded.omc = opts.telemetry.omitContext;
  encoded.attempts = opts.attempts ?? 0;
  const backoff = normalizeBackoff(opts.backoff);
  if (backoff) encoded.backoff = backoff;
  return encoded;
}

/** Reads `opts` JSON written by either library back into public option names. */
/**
 * decodeOptions for an object nobody else holds (a fresh JSON.parse result): returned itself when
 * it has no short key to rename, which saves a copy per job a worker runs (a parsed object is
 * also exactly sized, a built one is not).
 */
export function decodeOwnedOptions(raw: Record<string, unknown>): JobsOptions {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return decodeOptions(raw);
  for (const key in raw) {
    if (key === 'tm' || key === 'omc' || LONG_KEYS[key] !== undefined) return decodeOptions(raw);
  }
  return raw as JobsOptions;
}

export function decodeOptions(raw: Record<string, unknown>): JobsOptions {
  const decoded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'tm' || key === 'omc') continue;
    decoded[LONG_KEYS[key] ?? key] = value;
  }
  if (raw.tm !== undefined || raw.omc !== undefined) {
    const telemetry: JobTelemetryOptions = {};
    if (typeof raw.tm === 'string') telemetry.metadata = raw.tm;
    if (typeof raw.omc === 'boolean') telemetry.omitContext = raw.omc;
    decoded.telemetry = telemetry;
  }
  return decoded as JobsOptions;
}

/**
 * Every check bullmq makes before adding a job, plus OxMQ's own (types, trace context), as
 * declared in engine/job/option-schema.ts (checked by option-check.ts). Takes the canonical options (flat spellings already
 * rewritten, engine/job/option-aliases.ts).
 */
export function validateJobOptions(opts: JobsOptions): void {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new ValidationError('job options must be an object');
  }
  const problem = jobOptionsProblem(opts as Record<string, unknown>);
  if (problem) throw new ValidationError(problem);
  if (opts.traceparent !== undefined) TraceContext.of(opts.traceparent, opts.tracestate);
}

/** A tenant group id: 1..128 characters of [A-Za-z0-9_.-] (no `:`, so keys stay parseable). */
export function validateGroupId(id: unknown): asserts id is string {
  const checked = groupIdSchema.safeParse(id);
  if (!checked.success) throw new ValidationError(checked.error.issues[0]!.message);
}

/**
 * The options of a job read back from Redis that a new add accepts: for copying a job whose
 * options a foreign producer wrote (bullmq keeps unknown options), where refusing the copy for
 * a field nobody reads would help no one. Scheduler-owned and refused names are dropped too.
 */
export function acceptedJobOptions<T extends object>(opts: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(opts).filter(([key]) => key in JOB_OPTION_FIELDS),
  ) as Partial<T>;
}

/**
 * Serialises job data the way it is stored: JSON text, `{}` for undefined. Values JSON cannot
 * carry faithfully (functions, symbols, BigInt, cycles) are refused instead of silently dropped.
 */
export function serializeData(data: unknown, sizeLimit?: number): string {
  if (data === undefined) return '{}';
  assertJsonSafe(data, '$', new Set());
  const json = JSON.stringify(data);
  if (sizeLimit !== undefined && Buffer.byteLength(json) > sizeLimit) {
    throw new ValidationError(
      `Job data is ${Buffer.byteLength(json)} bytes, over sizeLimit ${sizeLimit}`,
    );
  }
  return json;
}

function assertJsonSafe(value: unknown, path: string, ancestors: Set<object>): void {
  switch (typeof value) {
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new ValidationError(`Job data is not JSON-serialisable: ${typeof value} at ${path}`);
    case 'number':
      if (!Number.isFinite(value))
        throw new ValidationError(`Job data has a non-finite number at ${path}`);
      return;
    case 'object': {
      if (value === null) return;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return;
      if (ancestors.has(value))
        throw new ValidationError(`Job data has a circular reference at ${path}`);
      ancestors.add(value);
      for (const [key, child] of Object.entries(value))
        assertJsonSafe(child, `${path}.${key}`, ancestors);
      ancestors.delete(value);
      return;
    }
    default:
      return;
  }
}
