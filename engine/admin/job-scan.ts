/**
 * A walk over a whole state, window by window (job-window.ts), yielding what a filter keeps as
 * it goes: what the console streams to a search page ("searched 240,000 of 1,000,000, 3 found")
 * and to an export. Each window is one short script call; between windows the walk yields, so
 * Redis and the Node process serve others, and a consumer that stops (a closed page, an
 * aborted request) ends the walk at the next window.
 *
 * Offsets from the end a walk started at move when workers change the state meanwhile, so a walk
 * of a busy state may skip or repeat a job: it reports how far it looked, not an exact census.
 */
import type { Redis } from 'ioredis';
import type { Job } from '../job';
import {
  fieldsFor,
  matchWindow,
  windowMatcher,
  type JobFilter,
  type WindowMatcher,
} from './job-search';
import { readJobWindow, type ScanOrder } from './job-window';
import { queueHandle } from './queue-handle';
import type { QueueCountState } from './queues';
import { DEFAULT_REDACTION, type RedactionRules } from './redaction';

export const JOB_SCAN_LIMITS = {
  /** Jobs per window: a script call of about a millisecond on 200-byte jobs. */
  windowJobs: 500,
  /** Bytes one window reads at most. */
  windowBytes: 4 * 1024 * 1024,
  /** A job whose large fields pass this is never read (it is counted as too large). */
  jobMaxBytes: 1024 * 1024,
} as const;

export interface JobScanOptions {
  state: QueueCountState;
  order: ScanOrder;
  /** What to keep; null keeps every job (an export of a whole list). */
  filter: JobFilter | null;
  /** The redaction a filter sees; the defaults when not given. */
  redaction?: RedactionRules;
  /** Read data and return value too, whatever the filter needs (for an export). */
  withData?: boolean;
  /** Ends the walk at the next window once aborted. */
  signal?: AbortSignal;
}

export interface JobScanStep {
  /** Jobs of this window the filter kept, in walk order. */
  jobs: Job[];
  /** Jobs looked at so far, this window included. */
  scanned: number;
  /** Jobs in the state when this window was read. */
  total: number;
  /** Jobs passed over so far because they were too large to read. */
  tooLarge: number;
  /** True on the last step: the walk reached the end of the state. */
  done: boolean;
}

const KEEP_ALL: WindowMatcher = { prefilter: () => true, matches: () => true };

export async function* scanJobs(
  client: Redis,
  prefix: string,
  name: string,
  opts: JobScanOptions,
): AsyncGenerator<JobScanStep, void, undefined> {
  const queue = queueHandle(client, prefix, name);
  const rules = opts.redaction ?? DEFAULT_REDACTION;
  const matcher = opts.filter ? windowMatcher(opts.filter, rules) : KEEP_ALL;
  const fields = fieldsFor(opts.withData ? 'export' : (opts.filter?.mode ?? 'name'));
  let offset = 0;
  let tooLarge = 0;
  while (!opts.signal?.aborted) {
    const window = await readJobWindow(client, prefix, name, {
      state: opts.state,
      order: opts.order,
      offset,
      count: JOB_SCAN_LIMITS.windowJobs,
      budgetBytes: JOB_SCAN_LIMITS.windowBytes,
      jobMaxBytes: JOB_SCAN_LIMITS.jobMaxBytes,
      ...fields,
    });
    const kept = matchWindow(queue, window.entries, matcher);
    offset += window.entries.length;
    tooLarge += kept.tooLarge;
    // A window budget above the job cap always takes at least one job, so an empty window means
    // the state ended (or shrank below the offset) rather than a byte budget stopping it.
    const done = offset >= window.length || window.entries.length === 0;
    yield { jobs: kept.jobs, scanned: offset, total: window.length, tooLarge, done };
    if (done) return;
  }
}
