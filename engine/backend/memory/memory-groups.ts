/**
 * Tenant groups of one memory queue (the semantics of lua/includes/groups.lua): each group's
 * line of ready jobs, the ring of groups that have some (the fetch rotates it, so groups take
 * turns), each group's active jobs, settings and rate limit, and the delayed grouped jobs.
 */
import { windowTtl, type Window } from './rate-window';
import { ScoredIds } from './scored-ids';

/** What the groups use of their queue (memory-queue.ts). */
export interface GroupsHost {
  readonly jobs: ReadonlyMap<string, { hash: Record<string, string> }>;
  readonly meta: Record<string, string>;
  readonly active: string[];
  /** Wakes an idle worker unless the queue holds its jobs back. */
  signalReady(): void;
  emit(event: string, fields?: Record<string, string | number>): void;
}

/** Most groups one fetch looks at before giving up (as the Redis fetch). */
const GROUP_CANDIDATES = 50;

export interface GroupSettings {
  paused: boolean;
  concurrency?: number;
  /** A rate limit applies when both are set. */
  max?: number;
  duration?: number;
}

export type GroupTake =
  | { jobId: string; gid: string }
  /** reopen: when a skipped rate-limited group may start a job again (ms), 0 for none. */
  | { jobId?: undefined; reopen: number; full?: boolean };

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

export class MemoryGroups {
  /** Groups with ready jobs, the next one to look at first; each at most once. */
  ring: string[] = [];
  private readonly lines = new Map<string, string[]>();
  private readonly actives = new Map<string, Set<string>>();
  readonly meta = new Map<string, Record<string, string>>();
  private readonly limiters = new Map<string, { window?: Window; log: number[] }>();
  /** Every group ever used or configured. */
  readonly known = new Set<string>();
  /** Delayed grouped jobs, scored as the queue's delayed set. */
  readonly delayed = new ScoredIds();
  /** Alternates grouped and ungrouped fetches. */
  turn = 0;

  constructor(private readonly queue: GroupsHost) {}

  register(gid: string): void {
    this.known.add(gid);
  }

  /** The group's ready jobs, next first (the array itself: callers may change it). */
  line(gid: string): string[] {
    let line = this.lines.get(gid);
    if (!line) this.lines.set(gid, (line = []));
    return line;
  }

  active(gid: string): Set<string> {
    let set = this.actives.get(gid);
    if (!set) this.actives.set(gid, (set = new Set()));
    return set;
  }

  /** A ready job joins its group's line; a group whose line was empty joins the ring's end. */
  push(gid: string, jobId: string, front: boolean): void {
    const line = this.line(gid);
    if (front) line.unshift(jobId);
    else line.push(jobId);
    if (line.length === 1) this.ring.push(gid);
  }

  /** A group whose line is empty leaves the ring. */
  dropIfIdle(gid: string): void {
    if (this.line(gid).length === 0) this.ring = this.ring.filter((id) => id !== gid);
  }

  removeFromLine(gid: string, jobId: string): boolean {
    const line = this.line(gid);
    const at = line.indexOf(jobId);
    if (at < 0) return false;
    line.splice(at, 1);
    this.dropIfIdle(gid);
    return true;
  }

  isPaused(gid: string): boolean {
    return this.meta.get(gid)?.paused !== undefined;
  }

  /** The group's own settings, else the queue-wide defaults (a rate limit as a pair). */
  settings(gid: string): GroupSettings {
    const own = this.meta.get(gid) ?? {};
    const queueMeta = this.queue.meta;
    let max = numberOf(own.max);
    let duration = numberOf(own.duration);
    if (max === undefined || duration === undefined) {
      max = numberOf(queueMeta['group.max']);
      duration = numberOf(queueMeta['group.duration']);
    }
    return {
      paused: own.paused !== undefined,
      concurrency: numberOf(own.concurrency) ?? numberOf(queueMeta['group.concurrency']),
      max,
      duration,
    };
  }

  private limiter(gid: string): { window?: Window; log: number[] } {
    let limiter = this.limiters.get(gid);
    if (!limiter) this.limiters.set(gid, (limiter = { log: [] }));
    return limiter;
  }

  /** 0 when the group's rate limit lets a job start now, else the ms until it does. */
  rateLimitWait(gid: string, max: number, duration: number, now: number): number {
    const limiter = this.limiter(gid);
    if ((limiter.window?.count ?? 0) >= max) {
      const ttl = windowTtl(limiter.window, now);
      if (ttl > 0) return ttl;
      limiter.window = undefined;
    }
    limiter.log = limiter.log.filter((at) => at >= now - duration);
    if (limiter.log.length >= max) return Math.max(1, limiter.log[0]! + duration - now + 1);
    return 0;
  }

  /** The same answer without trimming anything (a read). */
  rateLimitTtl(gid: string, max: number, duration: number, now: number): number {
    const limiter = this.limiters.get(gid);
    if (!limiter) return 0;
    if ((limiter.window?.count ?? 0) >= max) {
      const ttl = windowTtl(limiter.window, now);
      if (ttl > 0) return ttl;
    }
    const recent = limiter.log.filter((at) => at >= now - duration);
    return recent.length >= max ? Math.max(1, recent[0]! + duration - now + 1) : 0;
  }

  private countStart(gid: string, duration: number, now: number): void {
    const limiter = this.limiter(gid);
    if (windowTtl(limiter.window, now) === -2) {
      limiter.window = { count: 0, expiresAt: now + Math.floor(Math.abs(duration)) };
    }
    limiter.window!.count += 1;
    limiter.log.push(now);
  }

  /**
   * Takes the next job of the next group that may start one (not paused, under its
   * concurrency and rate limit) into the queue's active list. `fits` (batch fetches): asked
   * before a job is taken; a job that does not fit ends the batch (`full`).
   */
  take(now: number, fits?: (jobId: string) => boolean): GroupTake {
    let reopen = 0;
    const candidates = Math.min(this.ring.length, GROUP_CANDIDATES);
    for (let looked = 0; looked < candidates; looked++) {
      const gid = this.ring.shift()!;
      this.ring.push(gid);
      const line = this.line(gid);
      if (line.length === 0) {
        this.dropIfIdle(gid);
        continue;
      }
      const { paused, concurrency, max, duration } = this.settings(gid);
      if (paused) continue;
      if (concurrency !== undefined && this.active(gid).size >= concurrency) continue;
      if (max !== undefined && duration !== undefined) {
        const wait = this.rateLimitWait(gid, max, duration, now);
        if (wait > 0) {
          if (reopen === 0 || now + wait < reopen) reopen = now + wait;
          continue;
        }
      }
      if (fits && !fits(line[0]!)) return { reopen: 0, full: true };
      const jobId = line.shift()!;
      this.dropIfIdle(gid);
      const job = this.queue.jobs.get(jobId);
      if (!job) continue;
      this.queue.active.push(jobId);
      this.active(gid).add(jobId);
      if (max !== undefined && duration !== undefined && job.hash.defa === undefined) {
        this.countStart(gid, duration, now);
      }
      return { jobId, gid };
    }
    return { reopen };
  }

  /** A grouped job left active: its slot is free (idle workers woken when that lets one run). */
  leaveActive(gid: string, jobId: string): void {
    const set = this.active(gid);
    const before = set.size;
    if (!set.delete(jobId)) return;
    if (this.line(gid).length === 0 || this.isPaused(gid)) return;
    const { concurrency } = this.settings(gid);
    if (concurrency !== undefined && before >= concurrency) this.queue.signalReady();
  }

  /** leaveActive for a job whose group is read from its hash; returns that group. */
  leaveActiveOf(jobId: string): string | undefined {
    const gid = this.queue.jobs.get(jobId)?.hash.gid;
    if (gid !== undefined) this.leaveActive(gid, jobId);
    return gid;
  }

  /** Due grouped delayed jobs (score <= bound) go to the back of their lines; how many. */
  promoteDue(bound: number): number {
    const due = this.delayed.upTo(bound);
    for (const jobId of due) {
      this.delayed.delete(jobId);
      const hash = this.queue.jobs.get(jobId)?.hash;
      if (hash?.gid === undefined) continue;
      this.push(hash.gid, jobId, false);
      this.queue.emit('waiting', { jobId, prev: 'delayed' });
      hash.delay = '0';
    }
    return due.length;
  }

  /** Ready jobs in every line. */
  waitingCount(): number {
    let count = 0;
    for (const line of this.lines.values()) count += line.length;
    return count;
  }

  /** Lines of the groups with ready jobs, in group id order (how listings read them). */
  linesInIdOrder(): string[][] {
    return [...this.lines.entries()]
      .filter(([, line]) => line.length > 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, line]) => line);
  }

  /** Forgets every group (obliterate). */
  clear(): void {
    this.ring = [];
    this.lines.clear();
    this.actives.clear();
    this.meta.clear();
    this.limiters.clear();
    this.known.clear();
    this.delayed.clear();
    this.turn = 0;
  }
}
