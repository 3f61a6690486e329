/**
 * A job's lifecycle across attempts, from its hash and the queue's events
 * stream. The stream is shared by every job of the queue and trimmed (MAXLEN ~), so it is read
 * newest-first in XREVRANGE ... COUNT pages, filtered by jobId, and never past a cap of entries
 * examined. The answer says whether the stream still reaches back to the job's creation: when it
 * does not, the oldest steps come from the hash alone (only `added`, from `timestamp`).
 */
import type { RedisClient } from '../../backend/redis/connection';
import { QueueKeys } from '../../queue/keys';

export const JOB_TIMELINE_DEFAULTS = {
  /** Stream entries per XREVRANGE round trip. */
  pageSize: 500,
  /** Stream entries examined at most per call (all jobs' events count). */
  maxScan: 10_000,
  /** Timeline entries kept at most (the newest are found first). */
  maxEntries: 200,
} as const;

export const JOB_TIMELINE_LIMITS = {
  pageSize: 1_000,
  maxScan: 100_000,
  maxEntries: 1_000,
} as const;

/** Events per job that tell its lifecycle; progress events are left to the progress bar. */
const LIFECYCLE_EVENTS = new Set([
  'added',
  'waiting',
  'delayed',
  'waiting-children',
  'active',
  'completed',
  'failed',
  'retries-exhausted',
  'stalled',
  'removed',
  'duplicated',
  // OxMQ's: a cancel through Redis (queue.cancelJob, the console) and how it ended.
  'cancel-requested',
  'cancelled',
  'cancel-ignored',
]);

export interface JobTimelineEntry {
  /** The stream entry id, or "hash" for a step known only from the job hash. */
  id: string;
  /** ms since the epoch (Redis' clock for stream entries). */
  at: number;
  event: string;
  /** The state the job came from, when the event says. */
  prev?: string;
  /** Which run this step belongs to: 1 from the first `active` on, 0 before any. */
  attempt: number;
  /**
   * `failed`: the failure reason; `delayed`: the due time (ms); `retries-exhausted`: attempts;
   * `cancel-requested`: the reason (`force stop: …` for a force stop); `cancelled` /
   * `cancel-ignored`: the outcome (`stopped`, `force-stopped`, `completed-anyway`).
   */
  detail?: string;
  source: 'stream' | 'hash';
}

export interface JobTimeline {
  /** Oldest first. */
  entries: JobTimelineEntry[];
  /** Stream entries examined. */
  scanned: number;
  /**
   * True when the stream was read back to (or past) the job's creation. False when the stream
   * was trimmed after the job was added, or a cap stopped the read first (see `capped`).
   */
  reachesCreation: boolean;
  /** True when maxScan or maxEntries stopped the read. */
  capped: boolean;
}

export interface JobTimelineOptions {
  prefix: string;
  queueName: string;
  jobId: string;
  /** The job's `timestamp` field (when it was added), from its hash. */
  createdAt: number;
  pageSize?: number;
  maxScan?: number;
  maxEntries?: number;
}

function clamp(value: number | undefined, fallback: number, max: number): number {
  const n = value === undefined || !Number.isFinite(value) ? fallback : Math.floor(value);
  return Math.max(1, Math.min(n, max));
}

function fieldsOf(flat: string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  return fields;
}

function msOf(streamId: string): number {
  return Number(streamId.split('-')[0]);
}

function detailOf(event: string, fields: Map<string, string>): string | undefined {
  // Never the return value: it may hold secrets, and the job view shows it redacted.
  if (event === 'failed') return fields.get('failedReason');
  if (event === 'delayed') return fields.get('delay');
  if (event === 'retries-exhausted') return fields.get('attemptsMade');
  if (event === 'cancel-requested') {
    const reason = fields.get('reason') ?? '';
    return fields.get('force') === '1' ? `force stop${reason ? `: ${reason}` : ''}` : reason;
  }
  if (event === 'cancelled' || event === 'cancel-ignored') return fields.get('outcome');
  return undefined;
}

export async function getJobTimeline(
  client: RedisClient,
  opts: JobTimelineOptions,
): Promise<JobTimeline> {
  const key = new QueueKeys(opts.prefix, opts.queueName).events;
  const pageSize = clamp(
    opts.pageSize,
    JOB_TIMELINE_DEFAULTS.pageSize,
    JOB_TIMELINE_LIMITS.pageSize,
  );
  const maxScan = clamp(opts.maxScan, JOB_TIMELINE_DEFAULTS.maxScan, JOB_TIMELINE_LIMITS.maxScan);
  const maxEntries = clamp(
    opts.maxEntries,
    JOB_TIMELINE_DEFAULTS.maxEntries,
    JOB_TIMELINE_LIMITS.maxEntries,
  );

  const newestFirst: Omit<JobTimelineEntry, 'attempt'>[] = [];
  let scanned = 0;
  let end = '+';
  let reachesCreation = false;
  let capped = false;
  let sawAdded = false;

  for (;;) {
    const count = Math.min(pageSize, maxScan - scanned);
    if (count <= 0) {
      capped = true;
      break;
    }
    const rows = await client.xrevrange(key, end, '-', 'COUNT', count);
    scanned += rows.length;
    for (const [id, flat] of rows) {
      // Stream ids are Redis-clock ms; an entry older than the job's creation means the read
      // went past it (a second of slack for a producer's clock a little ahead of Redis').
      if (msOf(id) < opts.createdAt - 1_000) {
        reachesCreation = true;
        break;
      }
      const fields = fieldsOf(flat);
      const event = fields.get('event');
      if (fields.get('jobId') !== opts.jobId || !event || !LIFECYCLE_EVENTS.has(event)) continue;
      const entry: Omit<JobTimelineEntry, 'attempt'> = {
        id,
        at: msOf(id),
        event,
        source: 'stream',
      };
      const prev = fields.get('prev');
      if (prev !== undefined) entry.prev = prev;
      const detail = detailOf(event, fields);
      if (detail !== undefined) entry.detail = detail;
      newestFirst.push(entry);
      // A custom job id can be reused after removal: the newest `added` starts this job's life.
      if (event === 'added') {
        sawAdded = true;
        break;
      }
      if (newestFirst.length >= maxEntries) {
        capped = true;
        break;
      }
    }
    if (reachesCreation || sawAdded || capped) break;
    const last = rows[rows.length - 1];
    if (rows.length < count || !last) {
      // The stream's start: it covers creation only if its oldest entry is not newer.
      reachesCreation = last === undefined ? false : msOf(last[0]) <= opts.createdAt;
      break;
    }
    // "(" makes the end exclusive (Redis >= 6.2): the last entry was on this page.
    end = `(${last[0]}`;
  }
  if (sawAdded) reachesCreation = true;

  const oldestFirst = newestFirst.reverse();
  if (!sawAdded) {
    oldestFirst.unshift({ id: 'hash', at: opts.createdAt, event: 'added', source: 'hash' });
  }
  let attempt = 0;
  const entries = oldestFirst.map((entry) => {
    if (entry.event === 'active') attempt++;
    return { ...entry, attempt };
  });
  return { entries, scanned, reachesCreation, capped };
}
