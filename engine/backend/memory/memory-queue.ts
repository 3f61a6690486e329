/**
 * The data of one queue in the memory storage, and the small steps every operation is made of
 * (where a ready job goes, who is woken, what the log records). Lists are arrays ordered the way
 * bullmq lists them ascending: `wait[0]` and each group line's `[0]` run next, `active[0]` is the
 * job that started first. Scores follow bullmq's encodings (docs/redis-keys.md), so jobs order
 * the same as on Redis: delayed `due * 4096 + seq`, prioritized `priority * 2^32 + counter`.
 * Everything here runs synchronously: one storage call is one step no other call interleaves
 * with, which is what makes the memory storage's operations atomic.
 */
import type { QueueKeys } from '../../queue/keys';
import { DEFAULT_MAX_EVENTS, MemoryEventLog } from './event-log';
import { MemoryGroups } from './memory-groups';
import { MemoryWorkers } from './memory-workers';
import type { Window } from './rate-window';
import { ScoredIds } from './scored-ids';
import type { WakeSignals } from './wake-signals';

/** A job: its hash (bullmq's field names) and what hangs off it. */
export interface MemoryJob {
  hash: Record<string, string>;
  logs: string[];
  /** As a parent, by full child key: pending children. */
  dependencies: Set<string>;
  /** Completed children → return value JSON. */
  processed: Map<string, string>;
  /** Children whose failure was ignored (or continued past) → failedReason. */
  ignored: Map<string, string>;
  /** Children that failed the parent (failParentOnFailure) → when. */
  unsuccessful: ScoredIds;
}

export function newMemoryJob(hash: Record<string, string>): MemoryJob {
  return {
    hash,
    logs: [],
    dependencies: new Set(),
    processed: new Map(),
    ignored: new Map(),
    unsuccessful: new ScoredIds(),
  };
}

/** One span of the timing history (an hour of minutes, a day of hours), by field. */
export interface HistorySpan {
  expiresAt: number;
  fields: Map<string, number>;
}

/** Per-minute throughput as bullmq keeps it (metrics:<type> and its data list, newest first). */
export interface MemoryMetrics {
  count: number;
  prevTS?: number;
  prevCount: number;
  data: number[];
}

const PRIORITY_SPAN = 2 ** 32;
const DELAYED_FACTOR = 4096;

export class MemoryQueue {
  readonly jobs = new Map<string, MemoryJob>();
  readonly meta: Record<string, string> = {};
  /** Next job to run first. */
  wait: string[] = [];
  readonly prioritized = new ScoredIds();
  readonly delayed = new ScoredIds();
  /** Oldest start first. */
  active: string[] = [];
  readonly completed = new ScoredIds();
  readonly failed = new ScoredIds();
  readonly waitingChildren = new ScoredIds();
  readonly locks = new Map<string, { token: string; expiresAt: number }>();
  /** Active ids marked at the last stalled check, judged at the next. */
  stalled = new Set<string>();
  stalledCheckUntil = 0;
  /** The fixed window of the queue's rate limit (or a manual rate limit). */
  limiter?: Window;
  /** Start times within the last rate-limit duration (the sliding rule). */
  startLog: number[] = [];
  /** Deduplication windows: id → owner and expiry. */
  readonly dedup = new Map<string, { jobId: string; expiresAt?: number }>();
  readonly metrics: Record<'completed' | 'failed', MemoryMetrics> = {
    completed: { count: 0, prevCount: 0, data: [] },
    failed: { count: 0, prevCount: 0, data: [] },
  };
  /** Job schedulers: id → definition hash, and their next runs. */
  readonly schedulers = new Map<string, Record<string, string>>();
  readonly schedulerRuns = new ScoredIds();
  readonly groups = new MemoryGroups(this);
  readonly events = new MemoryEventLog();
  /** The live workers, by their heartbeats. */
  readonly workers = new MemoryWorkers();
  /** The timing history's spans, by `<resolution>:<span start>` (memory-history.ts). */
  readonly history = new Map<string, HistorySpan>();
  /** Counters of ids and priorities (bullmq's `id` and `pc`). */
  idCounter = 0;
  priorityCounter = 0;

  constructor(
    readonly keys: QueueKeys,
    readonly signals: WakeSignals,
  ) {}

  /** The box idle workers of this queue wait on (wake-signals.ts). */
  get markerBox(): string {
    return this.keys.marker;
  }

  // ---- the event log ----

  get maxEvents(): number {
    const stored = Number(this.meta['opts.maxLenEvents']);
    return Number.isFinite(stored) && stored >= 0 ? stored : DEFAULT_MAX_EVENTS;
  }

  emit(event: string, fields: Record<string, string | number> = {}): void {
    const flat = ['event', event];
    for (const [name, value] of Object.entries(fields)) flat.push(name, String(value));
    this.events.add(flat, this.maxEvents);
  }

  // ---- locks ----

  lockOwner(jobId: string, now = Date.now()): string | undefined {
    const lock = this.locks.get(jobId);
    if (!lock) return undefined;
    if (lock.expiresAt <= now) {
      this.locks.delete(jobId);
      return undefined;
    }
    return lock.token;
  }

  // ---- states ----

  isPaused(): boolean {
    return this.meta.paused !== undefined;
  }

  /** Paused, or at its global concurrency: no job is handed out and no marker written. */
  isPausedOrMaxed(): boolean {
    if (this.isPaused()) return true;
    const concurrency = Number(this.meta.concurrency);
    return this.meta.concurrency !== undefined && this.active.length >= concurrency;
  }

  /** Jobs are ready: wake one idle worker (unless the queue holds its jobs back). */
  signalReady(): void {
    if (!this.isPausedOrMaxed()) this.signals.signal(this.markerBox, '0', 0);
  }

  /** Idle workers wake by the earliest delayed job's due time. */
  signalNextDelayed(): void {
    const due = this.nextDelayedDueTs();
    if (due > 0) this.signals.signal(this.markerBox, '1', due);
  }

  /** Makes sure idle workers wake by `dueTs`: the signal moves earlier, never later. */
  signalWakeBy(dueTs: number): void {
    const current = this.signals.score(this.markerBox, '1');
    if (current === undefined || current > dueTs) this.signals.signal(this.markerBox, '1', dueTs);
  }

  /** Earliest delayed due time (ms), grouped jobs included; 0 when nothing is delayed. */
  nextDelayedDueTs(): number {
    const scores = [this.delayed, this.groups.delayed].flatMap((set) => {
      const first = set.first();
      return first === undefined ? [] : [set.score(first)!];
    });
    return scores.length === 0 ? 0 : Math.floor(Math.min(...scores) / DELAYED_FACTOR);
  }

  /** A delayed score for `dueTs`, after every job already due in the same ms. */
  delayedScore(set: ScoredIds, dueTs: number): number {
    const base = Math.floor(dueTs) * DELAYED_FACTOR;
    const top = set.maxScoreBetween(base, base + DELAYED_FACTOR - 1);
    return top === undefined ? base : Math.min(top + 1, base + DELAYED_FACTOR - 1);
  }

  priorityScore(priority: number): number {
    this.priorityCounter = (this.priorityCounter + 1) % PRIORITY_SPAN;
    return priority * PRIORITY_SPAN + this.priorityCounter;
  }

  /** Delays a job: due at `dueTs`, in the grouped set when it belongs to a group. */
  delay(jobId: string, dueTs: number): void {
    const set = this.jobs.get(jobId)?.hash.gid !== undefined ? this.groups.delayed : this.delayed;
    set.set(jobId, this.delayedScore(set, dueTs));
    this.signalNextDelayed();
  }

  /**
   * Puts a job that may run now where workers look: its group's line, else wait (priority 0;
   * `front` puts it first in line) or prioritized.
   */
  enqueueReady(jobId: string, priority: number, front: boolean): void {
    const gid = this.jobs.get(jobId)?.hash.gid;
    if (gid !== undefined) {
      this.groups.push(gid, jobId, front);
      if (!this.groups.isPaused(gid)) this.signalReady();
      return;
    }
    if (priority > 0) this.prioritized.set(jobId, this.priorityScore(priority));
    else if (front) this.wait.unshift(jobId);
    else this.wait.push(jobId);
    this.signalReady();
  }

  /** Jobs ready to run: the wait list, prioritized jobs and the groups with ready jobs. */
  readyCount(): number {
    return this.wait.length + this.prioritized.size + this.groups.ring.length;
  }

  /** Moves due delayed jobs (grouped ones to their lines) to where they may run. */
  promoteDue(now: number): void {
    const bound = (now + 1) * DELAYED_FACTOR - 1;
    const due = this.delayed.upTo(bound);
    for (const jobId of due) {
      this.delayed.delete(jobId);
      const hash = this.jobs.get(jobId)?.hash;
      if (!hash) continue;
      const priority = Number(hash.priority) || 0;
      if (priority > 0) this.prioritized.set(jobId, this.priorityScore(priority));
      else this.wait.push(jobId);
      this.emit('waiting', { jobId, prev: 'delayed' });
      hash.delay = '0';
    }
    const grouped = this.groups.promoteDue(bound);
    if (due.length + grouped > 0) this.signalReady();
  }

  /** Takes `jobId` out of the wait list; true when it was there. */
  removeFromWait(jobId: string): boolean {
    const at = this.wait.indexOf(jobId);
    if (at < 0) return false;
    this.wait.splice(at, 1);
    return true;
  }

  removeFromActive(jobId: string): boolean {
    const at = this.active.lastIndexOf(jobId);
    if (at < 0) return false;
    this.active.splice(at, 1);
    return true;
  }

  /**
   * The state a job is in, as bullmq names it, or undefined for none (missing, or held by no
   * state, e.g. mid-way in a move no storage call leaves it in).
   */
  stateOf(jobId: string): string | undefined {
    if (this.completed.has(jobId)) return 'completed';
    if (this.failed.has(jobId)) return 'failed';
    if (this.delayed.has(jobId) || this.groups.delayed.has(jobId)) return 'delayed';
    if (this.prioritized.has(jobId)) return 'prioritized';
    if (this.active.includes(jobId)) return 'active';
    if (this.wait.includes(jobId)) return 'waiting';
    const gid = this.jobs.get(jobId)?.hash.gid;
    if (gid !== undefined && this.groups.line(gid).includes(jobId)) return 'waiting';
    if (this.waitingChildren.has(jobId)) return 'waiting-children';
    return undefined;
  }
}
