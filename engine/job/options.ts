import { ValidationError } from '../errors';
import { DEFAULTS } from '../defaults';
import { GROUP_KEY_PREFIX, GROUP_QUEUE_KEY_NAMES } from '../queue/keys';
import { TraceContext } from '../telemetry/trace-context';
import { rejectUnknownJobOptions, rejectUnknownKeys } from './option-names';

export interface BackoffOptions {
  /** `fixed`, `exponential`, or the name of a custom strategy given to the Worker. */
  type: string;
  /** Base delay in ms. */
  delay?: number;
  /** 0..1: the delay is drawn uniformly from [delay * (1 - jitter), delay]. */
  jitter?: number;
  /** OxMQ extension: upper bound of an exponential delay, in ms. */
  maxDelay?: number;
}

/**
 * One job per deduplication id at a time. Without ttl the window lasts until that job finishes;
 * with ttl it expires after ttl ms (extend: every duplicate restarts it). replace (debounce):
 * a duplicate replaces the owner while the owner is still delayed. reschedule: a duplicate moves
 * a still-delayed owner to the duplicate's due time.
 */
export interface DeduplicationOptions {
  id: string;
  ttl?: number;
  extend?: boolean;
  replace?: boolean;
  reschedule?: boolean;
}

/**
 * Tenant group (OxMQ extension): the job waits in its group's own line, groups take turns at the
 * workers, and each group can have its own concurrency, rate limit and pause switch (see
 * Queue.setGroupConcurrency & co). Grouped jobs cannot have a priority.
 */
export interface GroupOptions {
  /** 1..128 characters of [A-Za-z0-9_.-]. */
  id: string;
}

/** removeOnComplete / removeOnFail: true deletes, a number keeps the newest n, or age/count. */
export type KeepJobs =
  | boolean
  | number
  | {
      /** Seconds. */
      age?: number;
      count?: number;
      /** Most deletions done by one finishing job. */
      limit?: number;
    };

export interface JobTelemetryOptions {
  metadata?: string;
  omitContext?: boolean;
}

export interface JobsOptions {
  jobId?: string;
  /** Creation time (ms); defaults to now. */
  timestamp?: number;
  delay?: number;
  /** 0 (none, runs first) or 1..2,097,151 (lower runs earlier). */
  priority?: number;
  lifo?: boolean;
  attempts?: number;
  backoff?: number | BackoffOptions;
  removeOnComplete?: KeepJobs;
  removeOnFail?: KeepJobs;
  keepLogs?: number;
  stackTraceLimit?: number;
  /** Largest accepted size of the data JSON, in bytes. */
  sizeLimit?: number;
  /** W3C trace context the job's spans continue. */
  traceparent?: string;
  tracestate?: string;
  /**
   * bullmq's trace propagation: `metadata` is the context a `telemetry` adapter serialized
   * (stored as `tm`), `omitContext` keeps the producer's context out of the job (`omc`).
   */
  telemetry?: JobTelemetryOptions;
  failParentOnFailure?: boolean;
  continueParentOnFailure?: boolean;
  ignoreDependencyOnFailure?: boolean;
  removeDependencyOnFailure?: boolean;
  deduplication?: DeduplicationOptions;
  /** Makes the job a child of an existing job: `queue` is `<prefix>:<queueName>` of the parent. */
  parent?: { id: string; queue: string };
  /** OxMQ extension: the tenant group the job belongs to (no priority then). */
  group?: GroupOptions;
  /** Flat spelling of `group: { id }`, rewritten before storing (engine/job/option-aliases.ts). */
  groupKey?: string;
  /** Flat spelling of `deduplication: { id }`, rewritten before storing. */
  deduplicationId?: string;
  /** Debounce window in ms (needs a deduplication id): `deduplication` in replace + extend mode. */
  debounceDuration?: number;
  /**
   * OxMQ, on replicated Redis (Sentinel, Cluster): after the add, wait (Redis WAIT) until
   * `replicas` replicas hold it or `timeoutMs` passes; the returned job's `durability` says how
   * many confirmed. Without it an acknowledged add can be lost when the master fails before a
   * replica got it (docs/scaling.md). Not stored with the job.
   */
  durable?: DurableOptions;
  // Any other key is refused with a ValidationError naming it (engine/job/option-names.ts).
}

export interface DurableOptions {
  /** Replicas that must hold the add (at least 1). */
  replicas: number;
  /** Longest wait in ms for them (at least 1; the add itself is not undone on timeout). */
  timeoutMs: number;
}

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

const FAILURE_POLICIES = [
  'failParentOnFailure',
  'continueParentOnFailure',
  'ignoreDependencyOnFailure',
  'removeDependencyOnFailure',
] as const;

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

const KEEP_JOBS_KEYS = new Set(['age', 'count', 'limit']);
const DEDUPLICATION_KEYS = new Set(['id', 'ttl', 'extend', 'replace', 'reschedule']);
const BACKOFF_KEYS = new Set(['type', 'delay', 'jitter', 'maxDelay']);
const PARENT_KEYS = new Set(['id', 'queue']);
const TELEMETRY_KEYS = new Set(['metadata', 'omitContext']);

function validateKeepJobs(name: string, keep: unknown): void {
  if (keep === undefined || typeof keep === 'boolean') return;
  if (typeof keep === 'number') {
    if (!isNonNegativeInteger(keep))
      throw new ValidationError(`${name} must be a non-negative integer`);
    return;
  }
  if (keep === null || typeof keep !== 'object') {
    throw new ValidationError(`${name} must be a boolean, a count or { age, count, limit }`);
  }
  rejectUnknownKeys(keep, KEEP_JOBS_KEYS, `${name} field`);
  for (const field of ['age', 'count', 'limit'] as const) {
    const value = (keep as Record<string, unknown>)[field];
    if (
      value !== undefined &&
      !(typeof value === 'number' && value >= 0 && Number.isFinite(value))
    ) {
      throw new ValidationError(`${name}.${field} must be a non-negative number`);
    }
  }
}

/** Rejects a custom job id bullmq would refuse, or that would break key parsing. */
function validateJobId(jobId: unknown): void {
  if (jobId === undefined) return;
  if (typeof jobId !== 'string' || jobId.length === 0) {
    throw new ValidationError('jobId must be a non-empty string');
  }
  if (jobId === '0' || jobId.startsWith('0:')) {
    throw new ValidationError('jobId cannot be "0" or start with "0:"');
  }
  if (String(parseInt(jobId, 10)) === jobId) {
    throw new ValidationError(`Custom jobId cannot be an integer string (got "${jobId}")`);
  }
  if (jobId.includes(':') && jobId.split(':').length !== 3) {
    throw new ValidationError(`Custom jobId cannot contain ":" (got "${jobId}")`);
  }
  // A job's hash is `Q<jobId>`: these would be the keys of tenant groups (docs/redis-keys.md).
  if (
    (GROUP_QUEUE_KEY_NAMES as readonly string[]).includes(jobId) ||
    jobId.startsWith(GROUP_KEY_PREFIX)
  ) {
    throw new ValidationError(`jobId "${jobId}" is reserved for tenant group keys`);
  }
}

/** Longest tenant group id. */
const MAX_GROUP_ID_LENGTH = 128;
const GROUP_ID_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** A tenant group id: 1..128 characters of [A-Za-z0-9_.-] (no `:`, so keys stay parseable). */
export function validateGroupId(id: unknown): asserts id is string {
  if (
    typeof id !== 'string' ||
    id.length === 0 ||
    id.length > MAX_GROUP_ID_LENGTH ||
    !GROUP_ID_PATTERN.test(id)
  ) {
    throw new ValidationError(
      `group id must be 1..${MAX_GROUP_ID_LENGTH} characters of [A-Za-z0-9_.-] (got ${JSON.stringify(id)})`,
    );
  }
}

function validateGroup(group: unknown, priority: number | undefined): void {
  if (group === undefined) return;
  if (group === null || typeof group !== 'object' || Array.isArray(group)) {
    throw new ValidationError('group must be { id }');
  }
  const unknownKeys = Object.keys(group).filter((key) => key !== 'id');
  if (unknownKeys.length > 0) {
    throw new ValidationError(`group only takes { id } (got ${unknownKeys.join(', ')})`);
  }
  validateGroupId((group as { id?: unknown }).id);
  if (priority !== undefined && priority > 0) {
    // A group's line is first in, first out (one list per group); ordering it by priority would
    // cost every grouped add and fetch a sorted set. The two ways to jump a group's line:
    throw new ValidationError(
      'priority is not supported for grouped jobs: a group runs its jobs in the order they were added. ' +
        "To run one job ahead of its group's line, add it with lifo: true; for a lane of urgent " +
        'work, give it its own group (for example "<group id>-urgent") with its own concurrency.',
    );
  }
}

/** Every check bullmq makes before adding a job, plus OxMQ's own (types, trace context). */
export function validateJobOptions(opts: JobsOptions): void {
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new ValidationError('job options must be an object');
  }
  rejectUnknownJobOptions(opts);
  validateJobId(opts.jobId);
  if (opts.priority !== undefined) {
    if (!isNonNegativeInteger(opts.priority) || opts.priority > DEFAULTS.maxPriority) {
      throw new ValidationError(
        `priority must be an integer between 0 and ${DEFAULTS.maxPriority}`,
      );
    }
  }
  if (
    opts.delay !== undefined &&
    !(typeof opts.delay === 'number' && opts.delay >= 0 && Number.isFinite(opts.delay))
  ) {
    throw new ValidationError('delay must be a non-negative number of ms');
  }
  if (
    opts.timestamp !== undefined &&
    !(typeof opts.timestamp === 'number' && Number.isFinite(opts.timestamp))
  ) {
    throw new ValidationError('timestamp must be a number of ms');
  }
  if (opts.attempts !== undefined && !isNonNegativeInteger(opts.attempts)) {
    throw new ValidationError('attempts must be a non-negative integer');
  }
  for (const name of ['keepLogs', 'stackTraceLimit', 'sizeLimit'] as const) {
    if (opts[name] !== undefined && !isNonNegativeInteger(opts[name])) {
      throw new ValidationError(`${name} must be a non-negative integer`);
    }
  }
  if (opts.lifo !== undefined && typeof opts.lifo !== 'boolean') {
    throw new ValidationError('lifo must be a boolean');
  }
  validateBackoff(opts.backoff);
  validateKeepJobs('removeOnComplete', opts.removeOnComplete);
  validateKeepJobs('removeOnFail', opts.removeOnFail);
  if (FAILURE_POLICIES.filter((policy) => opts[policy]).length > 1) {
    throw new ValidationError(`At most one of ${FAILURE_POLICIES.join(', ')} can be set`);
  }
  validateParent(opts.parent);
  validateGroup(opts.group, opts.priority);
  validateDeduplication(opts.deduplication, opts.parent !== undefined);
  validateTelemetry(opts.telemetry);
  validateDurable(opts.durable);
  if (opts.traceparent !== undefined) TraceContext.of(opts.traceparent, opts.tracestate);
  else if (opts.tracestate !== undefined) {
    throw new ValidationError('tracestate needs a traceparent');
  }
}

const DURABLE_KEYS: ReadonlySet<string> = new Set(['replicas', 'timeoutMs']);

function validateDurable(durable: JobsOptions['durable']): void {
  if (durable === undefined) return;
  if (durable === null || typeof durable !== 'object' || Array.isArray(durable)) {
    throw new ValidationError('durable must be an object { replicas, timeoutMs }');
  }
  rejectUnknownKeys(durable, DURABLE_KEYS, 'durable field');
  if (!Number.isInteger(durable.replicas) || durable.replicas < 1) {
    throw new ValidationError('durable.replicas must be an integer of at least 1');
  }
  if (!Number.isInteger(durable.timeoutMs) || durable.timeoutMs < 1) {
    throw new ValidationError('durable.timeoutMs must be a positive integer of ms');
  }
}

function validateTelemetry(telemetry: JobsOptions['telemetry']): void {
  if (telemetry === undefined) return;
  if (telemetry === null || typeof telemetry !== 'object' || Array.isArray(telemetry)) {
    throw new ValidationError('telemetry must be an object { metadata?, omitContext? }');
  }
  rejectUnknownKeys(telemetry, TELEMETRY_KEYS, 'telemetry field');
  if (telemetry.metadata !== undefined && typeof telemetry.metadata !== 'string') {
    throw new ValidationError('telemetry.metadata must be a string');
  }
  if (telemetry.omitContext !== undefined && typeof telemetry.omitContext !== 'boolean') {
    throw new ValidationError('telemetry.omitContext must be a boolean');
  }
}

function validateDeduplication(de: JobsOptions['deduplication'], hasParent: boolean): void {
  if (de === undefined) return;
  if (de === null || typeof de !== 'object' || typeof de.id !== 'string' || de.id.length === 0) {
    throw new ValidationError('deduplication needs a non-empty string id');
  }
  rejectUnknownKeys(de, DEDUPLICATION_KEYS, 'deduplication field', {
    keepLastIfActive:
      'OxMQ does not implement keeping the last job while the owner is active; drop it, or use replace (debounce) with a delay',
  });
  if (
    de.ttl !== undefined &&
    !(typeof de.ttl === 'number' && de.ttl > 0 && Number.isFinite(de.ttl))
  ) {
    throw new ValidationError('deduplication.ttl must be a positive number of ms');
  }
  for (const flag of ['extend', 'replace', 'reschedule'] as const) {
    if (de[flag] !== undefined && typeof de[flag] !== 'boolean') {
      throw new ValidationError(`deduplication.${flag} must be a boolean`);
    }
  }
  if (de.extend && de.ttl === undefined)
    throw new ValidationError('deduplication.extend needs a ttl');
  if (de.replace && de.reschedule)
    throw new ValidationError('deduplication.replace and reschedule cannot be combined');
  if (hasParent) throw new ValidationError('deduplication cannot be combined with a parent');
}

function validateParent(parent: JobsOptions['parent']): void {
  if (parent === undefined) return;
  if (
    parent === null ||
    typeof parent !== 'object' ||
    typeof parent.id !== 'string' ||
    parent.id === '' ||
    typeof parent.queue !== 'string' ||
    !parent.queue.includes(':')
  ) {
    throw new ValidationError('parent must be { id, queue: "<prefix>:<queueName>" }');
  }
  rejectUnknownKeys(parent, PARENT_KEYS, 'parent field');
}

function validateBackoff(backoff: JobsOptions['backoff']): void {
  if (backoff === undefined) return;
  if (typeof backoff === 'number') {
    if (!(backoff >= 0 && Number.isFinite(backoff)))
      throw new ValidationError('backoff must be a non-negative number of ms');
    return;
  }
  if (backoff === null || typeof backoff !== 'object' || typeof backoff.type !== 'string') {
    throw new ValidationError('backoff must be a number or { type, delay, jitter?, maxDelay? }');
  }
  rejectUnknownKeys(backoff, BACKOFF_KEYS, 'backoff field');
  if (backoff.delay !== undefined && !(backoff.delay >= 0 && Number.isFinite(backoff.delay))) {
    throw new ValidationError('backoff.delay must be a non-negative number of ms');
  }
  if (backoff.jitter !== undefined && !(backoff.jitter >= 0 && backoff.jitter <= 1)) {
    throw new ValidationError('backoff.jitter must be between 0 and 1');
  }
  if (
    backoff.maxDelay !== undefined &&
    !(backoff.maxDelay > 0 && Number.isFinite(backoff.maxDelay))
  ) {
    throw new ValidationError('backoff.maxDelay must be a positive number of ms');
  }
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
