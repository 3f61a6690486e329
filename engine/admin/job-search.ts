/**
 * Bounded search over one state's jobs for the console's queue page, and the filter that
 * "all matching" bulk operations reuse.
 *
 * What is matched is the redacted view of a job (redaction.ts), the same view the console shows:
 * a search for text under a sensitive key, or along a path through one, finds nothing, because
 * that text is "[redacted]" in the view. So no sequence of searches can recover a redacted value
 * one character at a time.
 *
 * Each call is bounded three ways: `budget` jobs examined, `maxBytes` of job hash fields read
 * (each job's fields are sized with HSTRLEN before they are read, so the bound holds however
 * large one job is), and JOB_LIST_LIMITS.maxMatches matches. The answer says which bound stopped
 * it (`stoppedBy`) and hands back a cursor (an offset into the state's list) to continue from.
 * Offsets into a list that workers change meanwhile may skip or repeat a job; the answer says how
 * far it looked instead of pretending to be exact.
 */
import type { Redis } from 'ioredis';
import { Job } from '../job';
import { QueueKeys } from '../keys';
import { ascending, JOB_LIST_LIMITS, toJobRow, type JobRow } from './jobs';
import { queueHandle } from './queue-handle';
import type { QueueCountState } from './queues';
import {
  DEFAULT_REDACTION,
  isSensitiveKey,
  REDACTED,
  redactValue,
  type RedactionRules,
} from './redaction';

export type JobSearchMode = 'name' | 'text' | 'path';

/** What a search matches on; bulk operations over "all matching" reuse the same filter. */
export interface JobFilter {
  mode: JobSearchMode;
  /** Substring for name/text; for path, the value compared (as text) with the one at `path`. */
  query: string;
  /** Dotted path into data for mode 'path', e.g. `user.email` or `items[0].sku`. */
  path?: string;
}

export interface JobSearchOptions extends JobFilter {
  state: QueueCountState;
  /** Offset to start from (the previous answer's `next`). */
  cursor?: number;
  /** Jobs examined at most (clamped to JOB_LIST_LIMITS.maxSearchBudget). */
  budget?: number;
  /** Bytes of job hash fields read at most (clamped to JOB_LIST_LIMITS.maxSearchBytes). */
  maxBytes?: number;
  /** The redaction the match sees; the defaults when not given. */
  redaction?: RedactionRules;
}

/** Which bound ended a call before the end of the list. */
export type SearchStop = 'jobs' | 'bytes' | 'matches';

export interface JobSearchResult {
  state: QueueCountState;
  matches: JobRow[];
  /** Jobs examined by this call. */
  scanned: number;
  /** Offset the scan started at, and where it reached. */
  from: number;
  to: number;
  /** Jobs in the state when the scan ended. */
  total: number;
  /** Cursor to continue from, null when the list was scanned to its end. */
  next: number | null;
  /** Bytes of job hash fields this call read. */
  bytesRead: number;
  /** Jobs passed over unread because one alone is larger than a call's byte budget. */
  tooLarge: number;
  /** What stopped the call short of the list's end; null when it reached the end. */
  stoppedBy: SearchStop | null;
}

const PATH_PART = /[^.[\]]+/g;

/** Reads `a.b[0].c` from a value (own properties only); undefined when any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.match(PATH_PART) ?? []) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * readPath over the redacted view of `value`, without redacting all of it: a step through a
 * sensitive key meets "[redacted]" (a string, so any further step finds nothing), and the value
 * reached is redacted itself.
 */
export function readRedactedPath(value: unknown, path: string, rules: RedactionRules): unknown {
  let current = value;
  const parts = path.match(PATH_PART) ?? [];
  for (const [index, part] of parts.entries()) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) {
      return undefined;
    }
    if (!Array.isArray(current) && isSensitiveKey(part, rules)) {
      return index === parts.length - 1 ? REDACTED : undefined;
    }
    current = (current as Record<string, unknown>)[part];
  }
  return redactValue(current, rules);
}

/** The filter as a predicate over jobs, seeing only the redacted view of their data. */
export function jobMatcher(
  filter: JobFilter,
  rules: RedactionRules = DEFAULT_REDACTION,
): (job: Job) => boolean {
  const needle = filter.query.toLowerCase();
  if (filter.mode === 'name') return (job) => job.name.toLowerCase().includes(needle);
  if (filter.mode === 'text') {
    return (job) =>
      JSON.stringify(redactValue(job.data ?? null, rules) ?? null)
        .slice(0, JOB_LIST_LIMITS.maxDataChars)
        .toLowerCase()
        .includes(needle);
  }
  const path = filter.path ?? '';
  return (job) => {
    const found = readRedactedPath(job.data, path, rules);
    if (found === undefined) return false;
    const text = typeof found === 'string' ? found : JSON.stringify(found);
    return filter.query === '' || text === filter.query;
  };
}

// The fields a search reads: a row's, plus data when the mode looks into it. Their sizes are
// checked first for the ones that can be large; the small numeric ones are counted as read.
const ROW_FIELDS = [
  'name',
  'timestamp',
  'delay',
  'atm',
  'attemptsMade',
  'progress',
  'processedOn',
  'finishedOn',
  'failedReason',
] as const;
const SIZED_FIELDS = ['name', 'progress', 'failedReason'] as const;
/** What the unsized fields (numbers bullmq writes) take at most per job, for the budget. */
const SMALL_FIELDS_BYTES = 128;

function fieldsFor(mode: JobSearchMode): { read: string[]; sized: string[] } {
  return mode === 'name'
    ? { read: [...ROW_FIELDS], sized: [...SIZED_FIELDS] }
    : { read: [...ROW_FIELDS, 'data'], sized: [...SIZED_FIELDS, 'data'] };
}

const LIST_STATES = new Set<QueueCountState>(['waiting', 'active']);

/** The state's Redis key: `waiting` is the wait list (bullmq 6 keeps paused jobs there too). */
function stateKey(keys: QueueKeys, state: QueueCountState): string {
  return keys.base + (state === 'waiting' ? 'wait' : state);
}

/**
 * Ids at offsets [from, to] in the order Queue.getJobs uses: lists hold the newest job at the
 * head, so oldest-first reads from the tail; sorted sets ascend by score.
 */
async function readIdWindow(
  client: Redis,
  key: string,
  state: QueueCountState,
  from: number,
  to: number,
): Promise<string[]> {
  const asc = ascending(state);
  if (LIST_STATES.has(state)) {
    if (!asc) return client.lrange(key, from, to);
    return (await client.lrange(key, -(to + 1), -(from + 1))).reverse();
  }
  return asc ? client.zrange(key, from, to) : client.zrevrange(key, from, to);
}

function clampTo(value: number | undefined, fallback: number, max: number): number {
  const n = value === undefined || !Number.isFinite(value) ? fallback : Math.floor(value);
  return Math.max(1, Math.min(n, max));
}

export async function searchJobs(
  client: Redis,
  prefix: string,
  name: string,
  opts: JobSearchOptions,
): Promise<JobSearchResult> {
  const budget = clampTo(
    opts.budget,
    JOB_LIST_LIMITS.defaultSearchBudget,
    JOB_LIST_LIMITS.maxSearchBudget,
  );
  const maxBytes = clampTo(
    opts.maxBytes,
    JOB_LIST_LIMITS.maxSearchBytes,
    JOB_LIST_LIMITS.maxSearchBytes,
  );
  const queue = queueHandle(client, prefix, name);
  const keys = new QueueKeys(prefix, name);
  const key = stateKey(keys, opts.state);
  const matches = jobMatcher(opts, opts.redaction);
  const fields = fieldsFor(opts.mode);
  const from = Math.max(0, opts.cursor ?? 0);
  const found: JobRow[] = [];
  let offset = from;
  let bytesRead = 0;
  let tooLarge = 0;
  let stoppedBy: SearchStop | null = null;

  scan: for (;;) {
    if (offset - from >= budget) {
      stoppedBy = 'jobs';
      break;
    }
    const size = Math.min(JOB_LIST_LIMITS.searchChunk, budget - (offset - from));
    const ids = await readIdWindow(client, key, opts.state, offset, offset + size - 1);
    const plan = await planReads(client, keys, ids, fields.sized, maxBytes - bytesRead, maxBytes);
    const hashes = await readFields(client, keys, plan, ids, fields.read);
    for (const [i, id] of ids.entries()) {
      if (found.length >= JOB_LIST_LIMITS.maxMatches) {
        stoppedBy = 'matches';
        offset += i;
        break scan;
      }
      const step = plan[i];
      if (step === 'over-budget') {
        stoppedBy = 'bytes';
        offset += i;
        break scan;
      }
      if (step === 'too-large') {
        tooLarge += 1;
        continue;
      }
      const hash = hashes.get(id);
      if (!hash) continue; // gone since the id was listed, or a legacy "0:" marker
      bytesRead += hash.bytes;
      const job = Job.fromHash(queue, id, hash.fields);
      if (matches(job)) found.push(toJobRow(job));
    }
    offset += ids.length;
    if (ids.length < size) break; // the list ended inside this window
  }

  const total = (await queue.getJobCounts(opts.state))[opts.state] ?? 0;
  const ended = stoppedBy === null || offset >= total;
  return {
    state: opts.state,
    matches: found,
    scanned: offset - from,
    from,
    to: offset,
    total,
    next: ended ? null : offset,
    bytesRead,
    tooLarge,
    stoppedBy: ended ? null : stoppedBy,
  };
}

/** Per id: read it, stop before it (the budget left is too small), or pass over it. */
type ReadStep = 'read' | 'over-budget' | 'too-large';

/**
 * Sizes each job's large fields (HSTRLEN, O(1) each) and decides, in order, which fit in the
 * bytes `left`; everything from the first job that does not fit is 'over-budget'. A job larger
 * than a whole call's budget (`maxBytes`) is 'too-large': no call could ever read it.
 */
async function planReads(
  client: Redis,
  keys: QueueKeys,
  ids: readonly string[],
  sized: readonly string[],
  left: number,
  maxBytes: number,
): Promise<ReadStep[]> {
  if (ids.length === 0) return [];
  const sizing = client.pipeline();
  for (const id of ids) for (const field of sized) sizing.hstrlen(keys.base + id, field);
  const sizes = ((await sizing.exec()) ?? []).map(([error, reply]) => {
    if (error) throw error;
    return Number(reply);
  });
  const steps: ReadStep[] = [];
  let room = left;
  let full = false;
  for (let i = 0; i < ids.length; i++) {
    let cost = SMALL_FIELDS_BYTES;
    for (let f = 0; f < sized.length; f++) cost += sizes[i * sized.length + f] ?? 0;
    if (cost > maxBytes) steps.push('too-large');
    else if (full || cost > room) {
      full = true;
      steps.push('over-budget');
    } else {
      room -= cost;
      steps.push('read');
    }
  }
  return steps;
}

/** HMGET of the planned jobs' fields; a job whose hash is gone is absent from the map. */
async function readFields(
  client: Redis,
  keys: QueueKeys,
  plan: readonly ReadStep[],
  ids: readonly string[],
  fields: readonly string[],
): Promise<Map<string, { fields: Record<string, string>; bytes: number }>> {
  const wanted = ids.filter((_, i) => plan[i] === 'read');
  const out = new Map<string, { fields: Record<string, string>; bytes: number }>();
  if (wanted.length === 0) return out;
  const reading = client.pipeline();
  for (const id of wanted) reading.hmget(keys.base + id, ...fields);
  const replies = (await reading.exec()) ?? [];
  wanted.forEach((id, index) => {
    const [error, reply] = replies[index] ?? [null, []];
    if (error) throw error;
    const hash: Record<string, string> = {};
    let bytes = 0;
    (reply as (string | null)[]).forEach((value, f) => {
      if (value === null || value === undefined) return;
      hash[fields[f]!] = value;
      bytes += Buffer.byteLength(value);
    });
    if (Object.keys(hash).length > 0) out.set(id, { fields: hash, bytes });
  });
  return out;
}
