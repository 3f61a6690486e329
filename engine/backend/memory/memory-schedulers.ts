/**
 * SchedulerStorage in memory (the semantics of lua/addJobScheduler, updateJobScheduler,
 * removeJobScheduler and pauseJobScheduler, and of the timing in lua/includes/schedulerSlots):
 * a scheduler is its definition hash and next run; its pending iteration is an ordinary job
 * with id `repeat:<id>:<millis>`.
 */
import type { QueueKeys } from '../../queue/keys';
import {
  JobSchedulerIdCollisionError,
  JobSchedulerNotFoundError,
  JobSchedulerPausedStateError,
  JobSchedulerSlotsBusyError,
  type NextIterationOutcome,
  type NextIterationRequest,
  type SchedulerStorage,
  type StoredScheduler,
  type UpsertRequest,
} from '../scheduler-storage';
import { insertJob } from './insert-job';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { deleteJob, takeOutOfState } from './parents';
import { indexRange } from './scored-ids';
import { firstEverySlot, iterationId, nextEverySlot } from './scheduler-slots';

/** Where a not-yet-started iteration waits, or undefined when it runs, ran or is gone. */
function pendingState(queue: MemoryQueue, jobId: string): string | undefined {
  if (queue.delayed.has(jobId) || queue.groups.delayed.has(jobId)) return 'delayed';
  if (queue.prioritized.has(jobId)) return 'prioritized';
  const gid = queue.jobs.get(jobId)?.hash.gid;
  if (queue.wait.includes(jobId)) return 'wait';
  if (gid !== undefined && queue.groups.line(gid).includes(jobId)) return 'wait';
  return undefined;
}

function removePending(queue: MemoryQueue, jobId: string): void {
  takeOutOfState(queue, jobId);
  deleteJob(queue, jobId);
}

function numberOf(value: unknown): number | undefined {
  const number = typeof value === 'string' && value !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

export class MemorySchedulerStorage implements SchedulerStorage {
  private readonly queue: MemoryQueue;

  constructor(
    private readonly store: MemoryStore,
    keys: QueueKeys,
  ) {
    this.queue = store.queue(keys);
  }

  /** Stores and enqueues the iteration at `millis`; returns its id and delay. */
  private addIteration(
    schedulerId: string,
    millis: number,
    name: string,
    data: string,
    opts: Record<string, unknown>,
    now: number,
  ): { jobId: string; delay: number } {
    const jobId = iterationId(schedulerId, millis);
    const delay = Math.max(0, millis - now);
    const iterationOpts = { ...opts, jobId, delay };
    const fields: Record<string, string> = { rjk: schedulerId };
    const de = opts.de as { id?: unknown } | undefined;
    if (de && typeof de === 'object' && de.id !== undefined) fields.deid = String(de.id);
    const group = opts.group as { id?: unknown } | undefined;
    insertJob(
      this.store,
      this.queue,
      {
        customId: jobId,
        name,
        data,
        opts: JSON.stringify(iterationOpts),
        timestamp: now,
        delay,
        priority: numberOf(opts.priority) ?? 0,
        lifo: opts.lifo === true,
        fields,
        groupId: group && typeof group.id === 'string' ? group.id : undefined,
      },
      now,
    );
    return { jobId, delay };
  }

  async upsert(request: UpsertRequest, now: number): Promise<{ jobId: string; delay: number }> {
    const { queue } = this;
    const { id, scheduler: def } = request;
    const prevMillis = queue.schedulerRuns.score(id);
    const stored = queue.schedulers.get(id) ?? {};
    if (request.require) {
      if (prevMillis === undefined || !queue.schedulers.has(id)) {
        throw new JobSchedulerNotFoundError(`No job scheduler ${id}`);
      }
      const paused = stored['oxmq.pausedAt'] !== undefined;
      if (paused !== (request.require === 'paused')) {
        throw new JobSchedulerPausedStateError(
          request.require === 'paused'
            ? `Job scheduler ${id} is not paused`
            : `Job scheduler ${id} is paused: resume it first`,
        );
      }
    }
    const pending =
      prevMillis === undefined ? undefined : pendingState(queue, iterationId(id, prevMillis));

    const every = numberOf(def.every);
    let millis: number;
    let offset: number;
    if (every !== undefined) {
      const givenOffset = numberOf(def.offset);
      const storedOffset = numberOf(stored.offset);
      // Same every, offset and start: the schedule keeps its grid; else it starts afresh.
      const sameTiming =
        prevMillis !== undefined &&
        numberOf(stored.every) === every &&
        (givenOffset === undefined || givenOffset === storedOffset) &&
        numberOf(stored.startDate) === numberOf(def.startDate);
      if (sameTiming && pending) {
        millis = prevMillis;
        offset = storedOffset ?? prevMillis % every;
      } else if (sameTiming) {
        [millis, offset] = nextEverySlot(prevMillis, every, now, storedOffset);
      } else {
        [millis, offset] = firstEverySlot(every, now, givenOffset, numberOf(def.startDate));
      }
    } else {
      millis = Math.floor(request.nextMillis ?? now);
      offset = 0;
    }

    // The replaced pending iteration frees its own id; any other existing job blocks the slot.
    const taken = (ms: number) =>
      !(pending && ms === prevMillis) && queue.jobs.has(iterationId(id, ms));
    if (taken(millis)) {
      if (every === undefined) {
        throw new JobSchedulerIdCollisionError(
          `Cannot create job scheduler iteration - job ID already exists (scheduler ${id})`,
        );
      }
      let scans = 0;
      do {
        millis += every;
        scans += 1;
      } while (taken(millis) && scans < 32);
      if (taken(millis)) {
        throw new JobSchedulerSlotsBusyError(
          `Cannot create job scheduler iteration - current and next time slots already have jobs (scheduler ${id})`,
        );
      }
    }
    if (pending) removePending(queue, iterationId(id, prevMillis!));

    // The definition is rewritten whole, fields in bullmq's order; `ic` survives.
    const hash: Record<string, string> = { name: def.name };
    for (const field of ['tz', 'limit', 'pattern', 'startDate', 'endDate', 'every'] as const) {
      if (def[field] !== undefined) hash[field] = String(def[field]);
    }
    hash.offset = String(offset);
    const templateOpts = JSON.stringify(request.templateOpts ?? {});
    if (templateOpts !== '{}') hash.opts = templateOpts;
    if (request.data && request.data !== '{}') hash.data = request.data;
    hash.ic = stored.ic ?? '1';
    queue.schedulers.set(id, hash);
    queue.schedulerRuns.set(id, millis);
    return this.addIteration(id, millis, def.name, request.data || '{}', request.jobOpts, now);
  }

  async nextIteration(request: NextIterationRequest, now: number): Promise<NextIterationOutcome> {
    const { queue } = this;
    const { id } = request;
    const current = queue.schedulerRuns.score(id);
    const stored = queue.schedulers.get(id);
    if (current === undefined || stored?.name === undefined)
      return { created: false, reason: 'gone' };
    if (stored['oxmq.pausedAt'] !== undefined) return { created: false, reason: 'paused' };
    if (request.producerId !== iterationId(id, current)) {
      return { created: false, reason: 'not-current' };
    }
    const repeat = (request.opts.repeat ?? {}) as Record<string, unknown>;
    const every = numberOf(stored.every) ?? numberOf(repeat.every);
    let millis: number;
    if (every !== undefined) {
      const offset = numberOf(stored.offset) ?? numberOf(repeat.offset);
      [millis] = nextEverySlot(current, every, now, offset);
    } else {
      if (request.nextMillis === undefined) return { created: false, reason: 'gone' };
      millis = Math.floor(request.nextMillis);
    }
    const endDate = numberOf(stored.endDate);
    if (endDate !== undefined && millis > endDate) return { created: false, reason: 'ended' };
    const nextId = iterationId(id, millis);
    if (queue.jobs.has(nextId)) {
      queue.emit('duplicated', { jobId: nextId });
      return { created: false, reason: 'taken' };
    }
    queue.schedulerRuns.set(id, millis);
    stored.ic = String((Number(stored.ic) || 0) + 1);
    this.addIteration(id, millis, stored.name, stored.data ?? '{}', request.opts, now);
    return { created: true, jobId: nextId };
  }

  async remove(id: string): Promise<boolean> {
    const { queue } = this;
    const millis = queue.schedulerRuns.score(id);
    if (millis !== undefined) {
      const jobId = iterationId(id, millis);
      const state = pendingState(queue, jobId);
      if (state) {
        removePending(queue, jobId);
        queue.emit('removed', { jobId, prev: state });
      }
    }
    queue.schedulers.delete(id);
    return queue.schedulerRuns.delete(id);
  }

  async pause(id: string, now: number): Promise<'paused' | 'already-paused' | 'missing'> {
    const { queue } = this;
    const millis = queue.schedulerRuns.score(id);
    const hash = queue.schedulers.get(id);
    if (millis === undefined || !hash) return 'missing';
    const jobId = iterationId(id, millis);
    const repeatCount = () => {
      try {
        const opts = JSON.parse(queue.jobs.get(jobId)?.hash.opts ?? '') as {
          repeat?: { count?: unknown };
        };
        return numberOf(opts.repeat?.count);
      } catch {
        return undefined;
      }
    };
    const state = pendingState(queue, jobId);
    let nextCount: number | undefined;
    if (state) {
      // It never ran: on resume its successor takes its number.
      nextCount = repeatCount();
      removePending(queue, jobId);
      queue.emit('removed', { jobId, prev: state });
    } else {
      const count = repeatCount();
      if (count !== undefined) nextCount = count + 1;
    }
    const already = hash['oxmq.pausedAt'] !== undefined;
    if (!already) hash['oxmq.pausedAt'] = String(now);
    if (nextCount !== undefined && (!already || state)) hash['oxmq.nextCount'] = String(nextCount);
    return already ? 'already-paused' : 'paused';
  }

  async get(id: string): Promise<StoredScheduler | undefined> {
    const next = this.queue.schedulerRuns.score(id);
    const hash = this.queue.schedulers.get(id);
    return next === undefined || !hash ? undefined : { hash: { ...hash }, next };
  }

  async range(
    start: number,
    end: number,
    asc: boolean,
  ): Promise<(StoredScheduler & { id: string })[]> {
    const runs = this.queue.schedulerRuns;
    const ids = asc ? runs.ids() : runs.ids().reverse();
    return indexRange(ids, start, end).flatMap((id) => {
      const hash = this.queue.schedulers.get(id);
      return hash ? [{ id, hash: { ...hash }, next: runs.score(id)! }] : [];
    });
  }

  async count(): Promise<number> {
    return this.queue.schedulerRuns.size;
  }

  async isScheduler(id: string): Promise<boolean> {
    return this.queue.schedulers.get(id)?.ic !== undefined;
  }

  async definition(id: string): Promise<Record<string, string>> {
    return { ...(this.queue.schedulers.get(id) ?? {}) };
  }
}
