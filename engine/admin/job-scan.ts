/**
 * A walk over a whole state, window by window (redis/job-window.ts: only the field a filter looks
 * at first; redis/job-window-rest.ts: the rest, for the jobs that pass), yielding what a filter
 * keeps as it goes: what the console streams to a search page ("searched 240,000 of 1,000,000, 3
 * found") and to an export. Each window is one short script call; between windows the walk yields,
 * so Redis and the Node process serve others, and a consumer that stops (a closed page, an aborted
 * request) ends the walk at the next window. Within a window, the first look and the matching run
 * in short slices on turns shared by every admin loop of the process (cpu-turns.ts): a window of
 * 500 large jobs is a lot of parsing and redaction.
 *
 * Offsets from the end a walk started at move when workers change the state meanwhile, so a walk
 * of a busy state may skip or repeat a job: it reports how far it looked, not an exact census.
 */
import type { RedisClient } from '../backend/redis/connection';
import { Job } from '../job/job';
import { SHARED_CPU_TURNS, type CpuTurns } from './cpu-turns';
import { fieldsFor, windowMatcher, type JobFilter, type WindowMatcher } from './job-search';
import { readJobWindow, type ScanOrder } from './redis/job-window';
import { queueHandle } from './queue-handle';
import type { QueueCountState } from './redis/queues';
import { DEFAULT_REDACTION, type RedactionRules } from './redaction';
import { readRestOfWindow, type PassedJob, type FieldSet } from './redis/job-window-rest';

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
  /** Whose turns the CPU work waits for; the process's shared ones when not given. */
  turns?: CpuTurns;
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
const NOTHING: FieldSet = { sized: [], unsized: [] };
/** Share of a window's jobs passing the first look above which windows are read whole... */
const WHOLE_READ_ENTER = 0.3;
/** ...and below which they go back to the first look alone. */
const WHOLE_READ_LEAVE = 0.1;

/**
 * What a window reads (`probe`) and what only the jobs that pass the first look read (`rest`):
 * the one field that look needs, or everything when there is no filter (an export of a list).
 */
function readPlan(
  filter: JobFilter | null,
  withData: boolean,
): { probe: FieldSet; rest: FieldSet } {
  const all = fieldsFor(withData ? 'export' : (filter?.mode ?? 'name'));
  if (!filter) return { probe: all, rest: NOTHING };
  const looked = filter.mode === 'name' ? 'name' : 'data';
  return {
    probe: { sized: [looked], unsized: [] },
    rest: { sized: all.sized.filter((field) => field !== looked), unsized: all.unsized },
  };
}

export async function* scanJobs(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: JobScanOptions,
): AsyncGenerator<JobScanStep, void, undefined> {
  const queue = queueHandle(client, prefix, name);
  const rules = opts.redaction ?? DEFAULT_REDACTION;
  const matcher = opts.filter ? windowMatcher(opts.filter, rules) : KEEP_ALL;
  const split = readPlan(opts.filter, opts.withData ?? false);
  // When most jobs pass the first look, two reads cost more than one: read them whole until
  // the first look starts ruling jobs out again.
  const whole = {
    probe: { sized: [...split.probe.sized, ...split.rest.sized], unsized: split.rest.unsized },
    rest: NOTHING,
  };
  let readWhole = false;
  const limits = {
    budgetBytes: JOB_SCAN_LIMITS.windowBytes,
    jobMaxBytes: JOB_SCAN_LIMITS.jobMaxBytes,
  };
  const slice = (opts.turns ?? SHARED_CPU_TURNS).slice();
  let offset = 0;
  let tooLarge = 0;
  while (!opts.signal?.aborted) {
    const plan = readWhole ? whole : split;
    const window = await readJobWindow(client, prefix, name, {
      state: opts.state,
      order: opts.order,
      offset,
      count: JOB_SCAN_LIMITS.windowJobs,
      ...limits,
      ...plan.probe,
    });
    const candidates: PassedJob[] = [];
    await slice.begin();
    for (const [index, entry] of window.entries.entries()) {
      if (entry.mark === 'read' && matcher.prefilter(entry.fields)) {
        candidates.push({ index, id: entry.id, fields: entry.fields, bytes: entry.bytes });
      }
      if (slice.spent()) await slice.begin();
    }
    const completed = await readRestOfWindow(client, prefix, name, candidates, plan.rest, limits);
    const passed = candidates.length / Math.max(1, window.entries.length);
    readWhole = readWhole ? passed > WHOLE_READ_LEAVE : passed > WHOLE_READ_ENTER;
    // A budget that stops the second read ends this step at that job; the next window starts
    // there. The first candidate always fits (the budget is above the job cap), so it moves on.
    const taken = completed.stoppedAt ?? window.entries.length;
    const jobs: Job[] = [];
    await slice.begin();
    for (const candidate of completed.jobs) {
      const job = Job.fromHash(queue, candidate.id, candidate.fields);
      if (matcher.matches(job)) jobs.push(job);
      if (slice.spent()) await slice.begin();
    }
    tooLarge +=
      completed.tooLarge +
      window.entries.slice(0, taken).filter((entry) => entry.mark === 'too-large').length;
    offset += taken;
    // A window budget above the job cap always takes at least one job, so an empty window means
    // the state ended (or shrank below the offset) rather than a byte budget stopping it.
    const done = offset >= window.length || window.entries.length === 0;
    yield { jobs, scanned: offset, total: window.length, tooLarge, done };
    if (done) return;
  }
}
