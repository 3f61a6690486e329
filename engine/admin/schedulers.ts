/**
 * Job schedulers for the console's queue page: a page of schedulers with their pending and
 * previous iteration, and the operator's actions. Everything goes through the engine's Queue
 * and JobScheduler, so an action means what `upsertJobScheduler` / `removeJobScheduler` and
 * OxMQ's pause / resume mean (engine/scheduler/job-scheduler.ts, docs/redis-keys.md).
 */
import type { RedisClient } from '../backend/redis/connection';
import type { JobStateReply } from '../backend/queue-operations';
import {
  JobSchedulerNotFoundError,
  NEXT_COUNT_FIELD,
  PAUSED_AT_FIELD,
} from '../backend/scheduler-storage';
import { storedTemplate } from '../scheduler/stored-definition';
import { queueHandle } from './queue-handle';
import { iterationJobId, previousSlot } from './scheduler-runs';

export const SCHEDULER_LIST_LIMITS = { maxPageSize: 100, defaultPageSize: 25 } as const;

export interface SchedulerIteration {
  jobId: string;
  /** 'unknown' when no such job exists (any more). */
  state: JobStateReply;
}

export interface SchedulerRow {
  id: string;
  /** Name of the jobs it makes. */
  name: string;
  pattern: string | null;
  every: number | null;
  tz: string | null;
  /** When the pending iteration is due (ms); null while paused. */
  next: number | null;
  paused: boolean;
  pausedAt: number | null;
  limit: number | null;
  /** Iterations created over the scheduler's life (bullmq's `ic`). */
  iterationCount: number | null;
  /** `repeat.count` the next iteration carries when resumed (paused schedulers only). */
  nextCount: number | null;
  startDate: number | null;
  endDate: number | null;
  /** The iteration waiting for its time; null when none is (paused, limit or endDate reached). */
  pending: SchedulerIteration | null;
  /** The iteration at the schedule's previous slot; null when no job is there. */
  previous: SchedulerIteration | null;
}

export interface SchedulerPage {
  schedulers: SchedulerRow[];
  total: number;
  page: number;
  pageSize: number;
}

function int(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

async function iteration(
  states: (jobId: string) => Promise<JobStateReply>,
  jobId: string | undefined,
): Promise<SchedulerIteration | null> {
  if (jobId === undefined) return null;
  const state = await states(jobId);
  return state === 'unknown' ? null : { jobId, state };
}

/** One page of schedulers, soonest next run first (paused ones, whose score is past, lead). */
export async function listSchedulers(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: { page: number; pageSize: number },
): Promise<SchedulerPage> {
  const queue = queueHandle(client, prefix, name);
  const pageSize = Math.max(1, Math.min(opts.pageSize, SCHEDULER_LIST_LIMITS.maxPageSize));
  const page = Math.max(1, opts.page);
  const store = queue.schedulers;
  const start = (page - 1) * pageSize;
  const [rows, total] = await Promise.all([
    store.range(start, start + pageSize - 1, true),
    store.count(),
  ]);
  const states = (jobId: string) => queue.getJobState(jobId);
  const schedulers = await Promise.all(
    rows.map(async ({ id, hash, next }): Promise<SchedulerRow> => {
      const paused = hash[PAUSED_AT_FIELD] !== undefined;
      const every = int(hash.every);
      const pattern = hash.pattern || null;
      const tz = hash.tz || null;
      const before = previousSlot(next, {
        ...(every !== null && { every }),
        ...(pattern !== null && { pattern }),
        ...(tz !== null && { tz }),
      });
      const [pendingRun, previous] = await Promise.all([
        iteration(states, iterationJobId(id, next)),
        iteration(states, before === undefined ? undefined : iterationJobId(id, before)),
      ]);
      // The score's job is the pending one only while it has not started.
      const pendingStates: JobStateReply[] = ['delayed', 'waiting', 'prioritized'];
      const isPending = pendingRun !== null && pendingStates.includes(pendingRun.state);
      return {
        id,
        name: hash.name ?? '',
        pattern,
        every,
        tz,
        next: paused ? null : next,
        paused,
        pausedAt: int(hash[PAUSED_AT_FIELD]),
        limit: int(hash.limit),
        iterationCount: int(hash.ic),
        nextCount: int(hash[NEXT_COUNT_FIELD]),
        startDate: int(hash.startDate),
        endDate: int(hash.endDate),
        pending: isPending ? pendingRun : null,
        // A started score job is the latest run; otherwise look at the slot before it.
        previous: pendingRun !== null && !isPending ? pendingRun : previous,
      };
    }),
  );
  return { schedulers, total, page, pageSize };
}

/**
 * Run now: one ordinary job from the scheduler's template (its name, data and opts), with a
 * fresh id from the queue's counter and no `repeatJobKey`, so any bullmq or OxMQ worker takes
 * it like any job, it does not count against the scheduler's `limit` and it leaves the schedule
 * and its pending iteration as they are. Returns the new job's id.
 */
export async function runSchedulerNow(
  client: RedisClient,
  prefix: string,
  name: string,
  schedulerId: string,
): Promise<string> {
  const queue = queueHandle(client, prefix, name);
  const stored = await queue.schedulers.get(schedulerId);
  if (!stored) throw new JobSchedulerNotFoundError(`No job scheduler ${schedulerId}`);
  const template = storedTemplate(stored.hash);
  const job = await queue.add(template.name, template.data, template.opts);
  return job.id;
}

export async function pauseScheduler(
  client: RedisClient,
  prefix: string,
  name: string,
  schedulerId: string,
): Promise<void> {
  const paused = await queueHandle(client, prefix, name).pauseJobScheduler(schedulerId);
  if (!paused) throw new JobSchedulerNotFoundError(`No job scheduler ${schedulerId}`);
}

/** Resumes a paused scheduler; answers its next run (ms). */
export async function resumeScheduler(
  client: RedisClient,
  prefix: string,
  name: string,
  schedulerId: string,
): Promise<number> {
  const job = await queueHandle(client, prefix, name).resumeJobScheduler(schedulerId);
  return job.timestamp + job.delay;
}

/**
 * A new every or cron pattern (and tz) for a running scheduler, validated by the engine's own
 * upsert (a bad pattern is its ValidationError). The replaced pending iteration's
 * `repeat.count` carries over, so `limit` keeps counting. Answers the next run (ms).
 */
export async function editSchedulerRepeat(
  client: RedisClient,
  prefix: string,
  name: string,
  schedulerId: string,
  change: { every: number } | { pattern: string; tz?: string },
): Promise<number> {
  const queue = queueHandle(client, prefix, name);
  const store = queue.schedulers;
  const stored = await store.get(schedulerId);
  if (!stored) throw new JobSchedulerNotFoundError(`No job scheduler ${schedulerId}`);
  const scoreJobId = iterationJobId(schedulerId, stored.next);
  const [scoreJob, state] = await Promise.all([
    queue.getJob(scoreJobId),
    queue.getJobState(scoreJobId),
  ]);
  const count = Number((scoreJob?.opts as { repeat?: { count?: unknown } })?.repeat?.count);
  // A pending iteration is replaced and its number reused; one that ran is followed.
  const replaced = state === 'delayed' || state === 'waiting' || state === 'prioritized';
  const nextCount = Number.isSafeInteger(count) && count > 0 ? count + (replaced ? 0 : 1) : 1;
  const scheduler = await queue.jobScheduler;
  const job = await scheduler.changeJobSchedulerRepeat(schedulerId, change, nextCount);
  return job.timestamp + job.delay;
}

export async function removeScheduler(
  client: RedisClient,
  prefix: string,
  name: string,
  schedulerId: string,
): Promise<void> {
  const removed = await queueHandle(client, prefix, name).removeJobScheduler(schedulerId);
  if (!removed) throw new JobSchedulerNotFoundError(`No job scheduler ${schedulerId}`);
}
