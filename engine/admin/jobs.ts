/**
 * Paged job listings and bounded search for the console's queue page (issue 5 item 4).
 *
 * Every read is a bounded range: a page is at most JOB_LIST_LIMITS.maxPageSize jobs, and a
 * search examines at most `budget` jobs per call, then hands back a cursor (an offset into the
 * state's list) so the caller can continue. Offsets into a list that workers change meanwhile
 * may skip or repeat a job; the answer says how far it looked instead of pretending to be exact.
 */
import type { Redis } from 'ioredis';
import type { Job } from '../job';
import type { QueueCountState } from './queues';
import { queueHandle } from './queue-handle';

export const JOB_LIST_LIMITS = {
  maxPageSize: 100,
  /** Jobs a single search call examines at most. */
  maxSearchBudget: 5_000,
  defaultSearchBudget: 5_000,
  /** Jobs fetched per round trip while scanning. */
  searchChunk: 500,
  /** Matches a search call returns at most (it stops early when it has them). */
  maxMatches: 50,
  /** Characters of a job's data the search looks at; huge payloads are cut, not parsed twice. */
  maxDataChars: 64 * 1024,
} as const;

export interface JobRow {
  id: string;
  name: string;
  /** ms since epoch the job was created. */
  timestamp: number;
  attemptsMade: number;
  progress: number | object;
  processedOn: number | null;
  finishedOn: number | null;
  delay: number;
  failedReason: string | null;
}

export interface JobPage {
  state: QueueCountState;
  jobs: JobRow[];
  total: number;
  page: number;
  pageSize: number;
}

/** Newest first for finished states (like bullmq's getCompleted), oldest first otherwise. */
function ascending(state: QueueCountState): boolean {
  return state !== 'completed' && state !== 'failed';
}

export function toJobRow(job: Job): JobRow {
  return {
    id: job.id,
    name: job.name,
    timestamp: job.timestamp,
    attemptsMade: job.attemptsMade,
    progress: job.progress,
    processedOn: job.processedOn ?? null,
    finishedOn: job.finishedOn ?? null,
    delay: job.delay,
    failedReason: job.failedReason ?? null,
  };
}

export async function listJobs(
  client: Redis,
  prefix: string,
  name: string,
  opts: { state: QueueCountState; page: number; pageSize: number },
): Promise<JobPage> {
  const pageSize = Math.max(1, Math.min(opts.pageSize, JOB_LIST_LIMITS.maxPageSize));
  const page = Math.max(1, opts.page);
  const start = (page - 1) * pageSize;
  const queue = queueHandle(client, prefix, name);
  const [jobs, counts] = await Promise.all([
    queue.getJobs([opts.state], start, start + pageSize - 1, ascending(opts.state)),
    queue.getJobCounts(opts.state),
  ]);
  return {
    state: opts.state,
    jobs: jobs.map(toJobRow),
    total: counts[opts.state] ?? 0,
    page,
    pageSize,
  };
}

export async function findJob(
  client: Redis,
  prefix: string,
  name: string,
  id: string,
): Promise<(JobRow & { state: string }) | null> {
  const job = await queueHandle(client, prefix, name).getJob(id);
  if (!job) return null;
  return { ...toJobRow(job), state: await job.getState() };
}

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
  budget?: number;
}

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
}

const PATH_PART = /[^.[\]]+/g;

/** Reads `a.b[0].c` from a value; undefined when any step is missing. */
export function readPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.match(PATH_PART) ?? []) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function jobMatcher(opts: JobFilter): (job: Job) => boolean {
  const needle = opts.query.toLowerCase();
  if (opts.mode === 'name') return (job) => job.name.toLowerCase().includes(needle);
  if (opts.mode === 'text') {
    return (job) =>
      JSON.stringify(job.data ?? null)
        .slice(0, JOB_LIST_LIMITS.maxDataChars)
        .toLowerCase()
        .includes(needle);
  }
  const path = opts.path ?? '';
  return (job) => {
    const found = readPath(job.data, path);
    if (found === undefined) return false;
    const text = typeof found === 'string' ? found : JSON.stringify(found);
    return opts.query === '' || text === opts.query;
  };
}

export async function searchJobs(
  client: Redis,
  prefix: string,
  name: string,
  opts: JobSearchOptions,
): Promise<JobSearchResult> {
  const budget = Math.max(
    1,
    Math.min(opts.budget ?? JOB_LIST_LIMITS.defaultSearchBudget, JOB_LIST_LIMITS.maxSearchBudget),
  );
  const queue = queueHandle(client, prefix, name);
  const matches = jobMatcher(opts);
  const from = Math.max(0, opts.cursor ?? 0);
  const found: JobRow[] = [];
  let offset = from;
  let ended = false;
  while (offset - from < budget && found.length < JOB_LIST_LIMITS.maxMatches) {
    const chunkStart = offset;
    const size = Math.min(JOB_LIST_LIMITS.searchChunk, budget - (offset - from));
    const jobs = await queue.getJobs(
      [opts.state],
      offset,
      offset + size - 1,
      ascending(opts.state),
    );
    for (const job of jobs) {
      offset += 1;
      if (matches(job)) found.push(toJobRow(job));
      if (found.length >= JOB_LIST_LIMITS.maxMatches) break;
    }
    if (found.length >= JOB_LIST_LIMITS.maxMatches) break;
    if (jobs.length < size) {
      // getJobs drops ids whose hash is gone, so a short chunk alone is not proof of the end;
      // the state's count is. The chunk covered its range up to that count.
      const count = (await queue.getJobCounts(opts.state))[opts.state] ?? 0;
      offset = Math.max(offset, Math.min(chunkStart + size, count));
      if (offset >= count) {
        ended = true;
        break;
      }
    }
  }
  const total = (await queue.getJobCounts(opts.state))[opts.state] ?? 0;
  if (offset >= total) ended = true;
  return {
    state: opts.state,
    matches: found,
    scanned: offset - from,
    from,
    to: offset,
    total,
    next: ended ? null : offset,
  };
}
