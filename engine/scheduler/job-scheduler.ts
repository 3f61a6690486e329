/**
 * Job schedulers (recurring jobs), wire-compatible with bullmq 6.7.0 (docs/redis-keys.md): a scheduler
 * is `Q repeat` (zset: id → next run) plus `Q repeat:<id>` (hash: name, every | pattern + tz,
 * startDate, endDate, limit, offset, template opts and data, iteration count `ic`). Each run is
 * an ordinary job `repeat:<id>:<millis>` with `rjk = <id>`. Exactly one iteration is pending at
 * a time: upsert creates (or replaces) it, and a worker that starts an iteration creates the
 * next one (createNextIteration, guarded in Lua by the producer id so several workers, processes
 * or a re-fetch after a stall never fork the chain). bullmq and OxMQ workers continue each
 * other's schedulers.
 *
 * Downtime: at most ONE missed run is made up. While no worker runs, the pending iteration
 * simply waits (delayed, then due). When a worker comes back it runs that iteration once, late,
 * and schedules the next run at the first slot strictly after now: for `every` the next point of
 * the schedule's grid (`k * every + offset`), for a cron pattern the first cron instant after
 * max(now, the late iteration's own instant). Runs that fell entirely inside the downtime are
 * skipped, never replayed as a burst. This is bullmq 6.7.0's rule too.
 *
 * Other rules: `limit` caps the iterations counted by each iteration's `repeat.count`, which
 * (as in bullmq) restarts at 1 on every upsert; once reached the scheduler stays listed with no
 * pending run. No iteration is created for a run after `endDate` (bullmq may create one more
 * every-iteration past it; we check the slot in Lua). A future `startDate` delays the first run.
 * A cron scheduler's first run is the first instant after now (now with `immediately`); an
 * every scheduler's first run is now, or startDate, or the next `offset` slot.
 * Where we deliberately differ from bullmq 6.7.0 (same data format, stricter behaviour):
 * removeJobScheduler also removes a pending iteration that already sits in wait/prioritized
 * (bullmq only removes a delayed one, so one more run could happen); upsert re-times an every
 * schedule when its every, offset or startDate changes (bullmq only looks at every) and then
 * stores the new offset; bad input is a ValidationError (unknown repeat keys included) where
 * bullmq would warn, ignore or return undefined.
 *
 * Pause / resume (OxMQ extensions; bullmq 6.7.0 has no scheduler pause, docs/redis-keys.md):
 * pause takes the pending iteration out and marks the hash with OxMQ-only fields; resume
 * re-upserts the stored definition, the next iteration keeping its `repeat.count` so a `limit`
 * still counts what ran before the pause. Any upsert (ours or bullmq's) rewrites the hash and so
 * leaves the scheduler running.
 */
import { ValidationError } from '../errors';
import { Job } from '../job/job';
import { encodeOptions, serializeData, validateJobOptions } from '../job/options';
import { resolveOptionAliases } from '../job/option-aliases';
import type { JobsOptions } from '../job/options';
import type { JobScope } from '../job/scope';
import {
  iterationRepeat,
  nextCronMillis,
  schedulerDefinition,
  validateRepeatOptions,
  type IterationRepeat,
  type RepeatOptions,
} from './repeat-options';
import {
  NEXT_COUNT_FIELD,
  PAUSED_AT_FIELD,
  JobSchedulerNotFoundError,
  type NextIterationOutcome,
  type SchedulerStorage,
} from '../backend/scheduler-storage';
import { storedRepeatOptions, storedTemplate } from './stored-definition';
import { toSchedulerJson, type JobSchedulerJson } from './scheduler-json';

export type { RepeatOptions } from './repeat-options';
export type { JobSchedulerJson } from './scheduler-json';
export {
  JobSchedulerIdCollisionError,
  JobSchedulerNotFoundError,
  JobSchedulerPausedStateError,
  JobSchedulerSlotsBusyError,
} from '../backend/scheduler-storage';

/** How upsert writes: the first iteration's `repeat.count`, and the state it must find. */
interface UpsertMode {
  firstCount: number;
  require?: 'running' | 'paused';
}

/** What every iteration is made of. `name` defaults to the scheduler id, `data` to `{}`. */
export interface JobSchedulerTemplate<DataType = unknown, NameType extends string = string> {
  name?: NameType;
  data?: DataType;
  opts?: JobsOptions;
}

/** Options a template may not set: the schedule decides them. */
const SCHEDULE_OWNED_OPTIONS = [
  'jobId',
  'delay',
  'timestamp',
  'repeat',
  'parent',
  'deduplication',
] as const;

/** bullmq's optsAsJSON for schedule-produced opts: short keys, no defaults added. */
function storedOptions(opts: Record<string, unknown>): Record<string, unknown> {
  const encoded = encodeOptions(opts);
  if (opts.attempts === undefined) delete encoded.attempts;
  if (opts.backoff !== undefined) encoded.backoff = opts.backoff;
  return encoded;
}

/** bullmq's legacy (v5) repeatable key shape `name:id:endDate:tz:<cron|every>`. */
function hasLegacyRepeatableShape(key: string): boolean {
  const parts = key.split(':');
  if (parts.length < 5) return false;
  if (parts[2] !== '' && !/^\d+$/.test(parts[2]!)) return false;
  const suffix = parts.slice(4).join(':');
  return suffix.includes(' ') || /^\d+$/.test(suffix);
}

/** Internal: the scheduler operations behind Queue's methods and the Worker's fetch hook. */
export class JobScheduler {
  constructor(
    private readonly store: SchedulerStorage,
    private readonly scope: JobScope,
    private readonly defaultJobOptions: JobsOptions = {},
  ) {}

  /**
   * Creates scheduler `id`, or replaces its definition (keeping its iteration count) and its
   * pending iteration. Returns that iteration. Throws ValidationError, writing nothing, on bad
   * input (both or neither of every/pattern, every <= 0, unparsable pattern, unknown tz, ...).
   */
  async upsertJobScheduler<
    DataType = unknown,
    ReturnType = unknown,
    NameType extends string = string,
  >(
    id: string,
    repeatOpts: RepeatOptions,
    template: JobSchedulerTemplate<DataType, NameType> = {},
  ): Promise<Job<DataType, ReturnType, NameType>> {
    return this.upsert<DataType, ReturnType, NameType>(id, repeatOpts, template, { firstCount: 1 });
  }

  /**
   * Pauses scheduler `id` (OxMQ extension): its pending iteration is taken out and no worker of
   * ours creates another until resumeJobScheduler. False when there is no such scheduler.
   */
  async pauseJobScheduler(id: string): Promise<boolean> {
    return (await this.store.pause(id, Date.now())) !== 'missing';
  }

  /** True when scheduler `id` exists and is paused. */
  async isJobSchedulerPaused(id: string): Promise<boolean> {
    const hash = await this.store.definition(id);
    return hash[PAUSED_AT_FIELD] !== undefined;
  }

  /**
   * Resumes a paused scheduler from its stored definition and returns its new pending
   * iteration. Throws JobSchedulerNotFoundError / JobSchedulerPausedStateError (not paused), and
   * the upsert's ValidationError when the definition no longer holds (an endDate now past).
   */
  async resumeJobScheduler(id: string): Promise<Job> {
    const stored = await this.store.get(id);
    if (!stored) throw new JobSchedulerNotFoundError(`No job scheduler ${id}`);
    const template = storedTemplate(stored.hash);
    const nextCount = Number(stored.hash[NEXT_COUNT_FIELD]);
    return this.upsert(id, storedRepeatOptions(stored.hash), template, {
      firstCount: Number.isSafeInteger(nextCount) && nextCount > 0 ? nextCount : 1,
      require: 'paused',
    });
  }

  /**
   * Replaces a running scheduler's every / pattern (and tz), keeping the rest of its definition
   * and its template; the pending iteration is replaced and keeps its `repeat.count`.
   */
  async changeJobSchedulerRepeat(
    id: string,
    change: { every: number } | { pattern: string; tz?: string },
    pendingCount = 1,
  ): Promise<Job> {
    const stored = await this.store.get(id);
    if (!stored) throw new JobSchedulerNotFoundError(`No job scheduler ${id}`);
    const {
      every: _every,
      pattern: _pattern,
      offset,
      tz,
      ...kept
    } = storedRepeatOptions(stored.hash);
    const repeat: RepeatOptions =
      'every' in change
        ? { ...kept, every: change.every, ...(tz !== undefined && { tz }) }
        : { ...kept, pattern: change.pattern, ...((change.tz ?? tz) && { tz: change.tz ?? tz }) };
    // An every schedule keeps its grid offset only while it fits the new interval.
    if ('every' in change && offset !== undefined && offset < change.every) repeat.offset = offset;
    return this.upsert(id, repeat, storedTemplate(stored.hash), {
      firstCount: pendingCount,
      require: 'running',
    });
  }

  private async upsert<DataType = unknown, ReturnType = unknown, NameType extends string = string>(
    id: string,
    repeatOpts: RepeatOptions,
    template: JobSchedulerTemplate<DataType, NameType>,
    mode: UpsertMode,
  ): Promise<Job<DataType, ReturnType, NameType>> {
    if (typeof id !== 'string' || id.length === 0) {
      throw new ValidationError('job scheduler id must be a non-empty string');
    }
    const now = Date.now();
    const repeat = validateRepeatOptions(repeatOpts, now);
    if (repeat.limit !== undefined && mode.firstCount > repeat.limit) {
      throw new ValidationError(
        `job scheduler ${id} has made all ${repeat.limit} iterations its limit allows`,
      );
    }
    if (template === null || typeof template !== 'object') {
      throw new ValidationError('job scheduler template must be { name?, data?, opts? }');
    }
    const name = template.name ?? (id as NameType);
    if (typeof name !== 'string') throw new ValidationError('template name must be a string');
    const rawGiven = template.opts ?? {};
    if (rawGiven === null || typeof rawGiven !== 'object' || Array.isArray(rawGiven)) {
      throw new ValidationError('template opts must be an object');
    }
    const given = resolveOptionAliases(rawGiven);
    for (const option of SCHEDULE_OWNED_OPTIONS) {
      if ((given as Record<string, unknown>)[option] !== undefined) {
        throw new ValidationError(`template opts cannot set ${option}: the schedule decides it`);
      }
    }
    const defaults: Record<string, unknown> = { ...this.defaultJobOptions };
    for (const option of SCHEDULE_OWNED_OPTIONS) delete defaults[option];
    const templateOpts: JobsOptions = { ...defaults, ...given };
    validateJobOptions(templateOpts);
    const data = serializeData(template.data ?? {}, templateOpts.sizeLimit);

    let nextMillis: number | undefined;
    if (repeat.pattern !== undefined) {
      const first = repeat.immediately
        ? now
        : nextCronMillis(now, { ...repeat, pattern: repeat.pattern });
      if (first === undefined) {
        throw new ValidationError(`cron pattern "${repeat.pattern}" has no run before endDate`);
      }
      nextMillis = Math.max(first, now);
    }
    const jobOpts: Record<string, unknown> = {
      ...templateOpts,
      repeat: iterationRepeat(repeat, mode.firstCount),
      timestamp: now,
      repeatJobKey: id,
      ...(nextMillis !== undefined && { prevMillis: nextMillis }),
    };
    const { jobId, delay } = await this.store.upsert(
      {
        id,
        nextMillis,
        scheduler: schedulerDefinition(name, repeat),
        data,
        templateOpts: storedOptions(templateOpts as Record<string, unknown>),
        jobOpts: storedOptions(jobOpts),
        ...(mode.require && { require: mode.require }),
      },
      now,
    );
    const opts = { ...jobOpts, jobId, delay } as JobsOptions;
    const job = new Job<DataType, ReturnType, NameType>(
      this.scope,
      name,
      (template.data ?? {}) as DataType,
      opts,
      jobId,
      now,
    );
    job.delay = delay;
    job.repeatJobKey = id;
    return job;
  }

  async getJobScheduler<DataType = unknown>(
    id: string,
  ): Promise<JobSchedulerJson<DataType> | undefined> {
    const stored = await this.store.get(id);
    return stored ? toSchedulerJson<DataType>(id, stored.hash, stored.next) : undefined;
  }

  /** Schedulers ordered by next run (asc: soonest first); entries without a hash are skipped. */
  async getJobSchedulers<DataType = unknown>(
    start = 0,
    end = -1,
    asc = false,
  ): Promise<JobSchedulerJson<DataType>[]> {
    const rows = await this.store.range(start, end, asc);
    return rows.map((row) => toSchedulerJson<DataType>(row.id, row.hash, row.next));
  }

  getJobSchedulersCount(): Promise<number> {
    return this.store.count();
  }

  /** Removes the scheduler and its not-yet-started iteration; false if there was none. */
  removeJobScheduler(id: string): Promise<boolean> {
    return this.store.remove(id);
  }

  /**
   * Called by a worker as it starts a job with `repeatJobKey`: creates the next iteration
   * (docs/redis-keys.md). Nothing is created when the scheduler is gone, its `limit`
   * is reached, its `endDate` passed, or another fetch of this iteration already did it.
   */
  async createNextIteration(job: Job): Promise<void> {
    await this.nextIteration(job);
  }

  /** createNextIteration with its outcome (undefined when stopped client-side); for tests. */
  async nextIteration(job: Job): Promise<NextIterationOutcome | undefined> {
    const id = job.repeatJobKey;
    if (!id) return undefined;
    if (hasLegacyRepeatableShape(id) && !(await this.store.isScheduler(id))) {
      throw new Error(
        `Legacy repeatable job "${id}" (bullmq v5) is not supported: migrate it to a job scheduler`,
      );
    }
    const opts = job.opts as Record<string, unknown>;
    let repeat = opts.repeat as IterationRepeat | undefined;
    if (!repeat || typeof repeat !== 'object' || (!repeat.every && !repeat.pattern)) {
      repeat = await this.storedRepeat(id);
      if (!repeat) return { created: false, reason: 'gone' };
    }
    const count = repeat.count ? Number(repeat.count) + 1 : 1;
    if (repeat.limit !== undefined && count > Number(repeat.limit)) return undefined;
    const now = Date.now();
    if (repeat.endDate && now > Number(repeat.endDate)) return undefined;

    let nextMillis: number | undefined;
    if (repeat.pattern && !repeat.every) {
      const from = Math.max(now, Number(opts.prevMillis) || 0);
      const next = nextCronMillis(from, {
        pattern: String(repeat.pattern),
        tz: repeat.tz === undefined ? undefined : String(repeat.tz),
        startDate: repeat.startDate === undefined ? undefined : Number(repeat.startDate),
        endDate: repeat.endDate === undefined ? undefined : Number(repeat.endDate),
      });
      if (next === undefined) return undefined;
      nextMillis = Math.max(next, from);
    }
    const nextOpts: Record<string, unknown> = {
      ...opts,
      repeat: iterationRepeat(repeat, count),
      timestamp: now,
      repeatJobKey: id,
      prevMillis: nextMillis,
    };
    // encodeOptions: as bullmq's worker, which re-encodes a Job's opts (attempts defaults to 0).
    return this.store.nextIteration(
      { id, producerId: job.id, nextMillis, opts: encodeOptions(nextOpts as JobsOptions) },
      now,
    );
  }

  private async storedRepeat(id: string): Promise<IterationRepeat | undefined> {
    const hash = await this.store.definition(id);
    if (!hash.every && !hash.pattern) return undefined;
    const repeat: IterationRepeat = {};
    if (hash.every) repeat.every = Number(hash.every);
    if (hash.pattern) repeat.pattern = hash.pattern;
    if (hash.tz) repeat.tz = hash.tz;
    for (const field of ['limit', 'startDate', 'endDate'] as const) {
      if (hash[field]) repeat[field] = Number(hash[field]);
    }
    repeat.count = Number(hash.ic ?? 1);
    return repeat;
  }
}
