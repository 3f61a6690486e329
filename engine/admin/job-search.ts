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
 * it (`stoppedBy`) and hands back a cursor (an offset from the end it started at) to continue from.
 * The matching itself (parse, redact, serialize: the CPU-heavy part) runs in short slices on
 * turns of the event loop shared with every other admin loop of the process (cpu-turns.ts), so
 * no number of searches holds the thread for long.
 * The console's streaming search (job-scan.ts) walks a whole state with the same matcher.
 * Offsets into a list that workers change meanwhile may skip or repeat a job; the answer says how
 * far it looked instead of pretending to be exact.
 */
import type { RedisClient } from '../backend/redis/connection';
import { Job } from '../job/job';
import { SHARED_CPU_TURNS, type CpuTurns } from './cpu-turns';
import { JOB_LIST_LIMITS, toJobRow, type JobRow } from './jobs';
import { readJobWindow, type ScanOrder, type WindowEntry } from './redis/job-window';
import { queueHandle } from './queue-handle';
import type { JobFilter, JobSearchMode } from './job-filter';
import { searchPrefilter, type StoredFields } from './search-prefilter';
import type { QueueCountState } from './redis/queues';
import {
  DEFAULT_REDACTION,
  isSensitiveKey,
  REDACTED,
  redactValue,
  type RedactionRules,
} from './redaction';

export type { JobFilter, JobSearchMode } from './job-filter';

export interface JobSearchOptions extends JobFilter {
  state: QueueCountState;
  /** Which end of the state to start from; newest first unless asked (redis/job-window.ts). */
  order?: ScanOrder;
  /** Offset to start from (the previous answer's `next`). */
  cursor?: number;
  /** Jobs examined at most (clamped to JOB_LIST_LIMITS.maxSearchBudget). */
  budget?: number;
  /** Bytes of job hash fields read at most (clamped to JOB_LIST_LIMITS.maxSearchBytes). */
  maxBytes?: number;
  /** The redaction the match sees; the defaults when not given. */
  redaction?: RedactionRules;
  /** Whose turns the matching waits for; the process's shared ones when not given. */
  turns?: CpuTurns;
}

/** Which bound ended a call before the end of the list. */
export type SearchStop = 'jobs' | 'bytes' | 'matches';

export interface JobSearchResult {
  state: QueueCountState;
  order: ScanOrder;
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

/**
 * `a.b[0].c` read from the redacted view of `value`, without redacting all of it: a step through a
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

// The fields a search reads: a row's, plus data when the mode looks into it. The ones that can
// be large are sized in Redis before they are read; the numbers bullmq writes are not.
const SIZED_ROW_FIELDS = ['name', 'progress', 'failedReason'] as const;
const NUMBER_FIELDS = [
  'timestamp',
  'delay',
  'atm',
  'attemptsMade',
  'processedOn',
  'finishedOn',
] as const;

/** The fields a filter needs, split as readJobWindow takes them. */
export function fieldsFor(mode: JobSearchMode | 'export'): {
  sized: string[];
  unsized: string[];
} {
  const sized: string[] = [...SIZED_ROW_FIELDS];
  if (mode !== 'name') sized.push('data');
  if (mode === 'export') sized.push('returnvalue');
  return { sized, unsized: [...NUMBER_FIELDS] };
}

/** A filter as the two tests a window's jobs go through: on stored text, then on the job. */
export interface WindowMatcher {
  prefilter: (fields: StoredFields) => boolean;
  matches: (job: Job) => boolean;
}

export function windowMatcher(filter: JobFilter, rules?: RedactionRules): WindowMatcher {
  return { prefilter: searchPrefilter(filter), matches: jobMatcher(filter, rules) };
}

/** Whether the filter keeps one window entry: the prefilter, then the job itself. */
function keepsEntry(
  queue: ReturnType<typeof queueHandle>,
  entry: WindowEntry,
  matcher: WindowMatcher,
): Job | null {
  if (entry.mark !== 'read' || !matcher.prefilter(entry.fields)) return null;
  const job = Job.fromHash(queue, entry.id, entry.fields);
  return matcher.matches(job) ? job : null;
}

function clampTo(value: number | undefined, fallback: number, max: number): number {
  const n = value === undefined || !Number.isFinite(value) ? fallback : Math.floor(value);
  return Math.max(1, Math.min(n, max));
}

export async function searchJobs(
  client: RedisClient,
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
  const order = opts.order ?? 'newest';
  const queue = queueHandle(client, prefix, name);
  const matcher = windowMatcher(opts, opts.redaction);
  const fields = fieldsFor(opts.mode);
  const from = Math.max(0, opts.cursor ?? 0);
  const found: JobRow[] = [];
  const slice = (opts.turns ?? SHARED_CPU_TURNS).slice();
  let offset = from;
  let total = 0;
  let bytesRead = 0;
  let tooLarge = 0;
  let stoppedBy: SearchStop | null = null;

  for (;;) {
    if (offset - from >= budget) {
      stoppedBy = 'jobs';
      break;
    }
    const count = Math.min(JOB_LIST_LIMITS.searchChunk, budget - (offset - from));
    const window = await readJobWindow(client, prefix, name, {
      state: opts.state,
      order,
      offset,
      count,
      budgetBytes: maxBytes - bytesRead,
      jobMaxBytes: maxBytes,
      ...fields,
    });
    total = window.length;
    bytesRead += window.bytes;
    // Matches past the cap end the call at the job that would have been one too many.
    let taken = window.entries.length;
    await slice.begin();
    for (const [i, entry] of window.entries.entries()) {
      if (found.length >= JOB_LIST_LIMITS.maxMatches) {
        stoppedBy = 'matches';
        taken = i;
        break;
      }
      if (entry.mark === 'too-large') tooLarge += 1;
      const job = keepsEntry(queue, entry, matcher);
      if (job) found.push(toJobRow(job));
      if (slice.spent()) await slice.begin();
    }
    offset += taken;
    if (stoppedBy) break;
    if (offset >= total) break; // the state ended inside this window
    if (window.entries.length < count) {
      stoppedBy = 'bytes'; // the next job does not fit in what is left of the byte budget
      break;
    }
  }

  const ended = stoppedBy === null || offset >= total;
  return {
    state: opts.state,
    order,
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
