/**
 * Handing jobs to workers in the memory storage (the semantics of lua/includes/fetchNextJob.lua
 * and fetchJobBatch.lua): due delayed jobs are promoted, the queue's rate limit (a fixed window
 * and a sliding log, both must pass), pause and global concurrency are honoured, grouped and
 * ungrouped work take turns, and the job taken is locked and started.
 */
import type {
  BatchFetchRequest,
  BatchFetchResult,
  FetchIdentity,
  FetchResult,
} from '../queue-backend';
import type { MemoryQueue } from './memory-queue';
import { windowTtl } from './rate-window';

type NoJob = Extract<FetchResult, { kind: 'none' }>;

/** What a batch fetch keeps across the jobs of one batch. */
interface BatchState {
  /** Every job after the first: delayed jobs were promoted already. */
  later: boolean;
  fits?: (jobId: string) => boolean;
}

function none(rateLimitTtl = 0, nextDelayedTs = 0, held = false): NoJob {
  return { kind: 'none', rateLimitTtl, nextDelayedTs, held };
}

/** The queue's rate limit: 0 when a job may start now, else how long it holds. */
function rateLimitWait(queue: MemoryQueue, max: number, duration: number | undefined, now: number) {
  if ((queue.limiter?.count ?? 0) >= max) {
    const ttl = windowTtl(queue.limiter, now);
    if (ttl > 0) return ttl;
    if (ttl === -2) queue.limiter = undefined;
  }
  if (duration !== undefined) {
    queue.startLog = queue.startLog.filter((at) => at >= now - duration);
    if (queue.startLog.length >= max) return Math.max(1, queue.startLog[0]! + duration - now + 1);
  }
  return 0;
}

function countStart(queue: MemoryQueue, duration: number | undefined, now: number): void {
  if (windowTtl(queue.limiter, now) === -2) {
    queue.limiter = {
      count: 0,
      expiresAt: duration === undefined ? undefined : now + Math.floor(Math.abs(duration)),
    };
  }
  queue.limiter!.count += 1;
  if (duration !== undefined) queue.startLog.push(now);
}

/** Pops the next ungrouped job (wait, then prioritized) into active. */
function takeUngrouped(queue: MemoryQueue, fits?: (jobId: string) => boolean) {
  const next = queue.wait[0] ?? queue.prioritized.first();
  if (next === undefined) return { jobId: undefined, full: false };
  if (fits && !fits(next)) return { jobId: undefined, full: true };
  if (queue.wait.length > 0) queue.wait.shift();
  else queue.prioritized.delete(next);
  queue.active.push(next);
  return { jobId: next, full: false };
}

/** Locks the job for the worker, announces it and writes its start fields. */
function startJob(queue: MemoryQueue, jobId: string, identity: FetchIdentity, now: number) {
  const hash = queue.jobs.get(jobId)!.hash;
  if (identity.token !== '0') {
    queue.locks.set(jobId, { token: identity.token, expiresAt: now + identity.lockDuration });
  }
  queue.emit('active', { jobId, prev: 'waiting' });
  hash.processedOn = String(now);
  hash.ats = String((Number(hash.ats) || 0) + 1);
  if (identity.name) hash.pb = identity.name;
  return { ...hash };
}

export function fetchNextJob(
  queue: MemoryQueue,
  identity: FetchIdentity,
  now: number,
  batch?: BatchState,
): FetchResult {
  const held = queue.isPausedOrMaxed();
  if (!batch?.later) queue.promoteDue(now);
  // The queue-wide max wins over the worker's; the worker's window duration over the queue's.
  const metaMax = Number(queue.meta.max);
  const maxJobs = queue.meta.max !== undefined ? metaMax : identity.limiter?.max;
  const metaDuration = Number(queue.meta.duration);
  const duration =
    identity.limiter?.duration ?? (queue.meta.duration !== undefined ? metaDuration : undefined);
  if (maxJobs !== undefined) {
    const wait = rateLimitWait(queue, maxJobs, duration, now);
    if (wait > 0) return none(wait);
  }
  if (held) return none(0, 0, true);

  const fits = batch?.fits;
  const hasGroups = queue.groups.ring.length > 0;
  const groupsFirst =
    hasGroups && queue.readyCount() > queue.groups.ring.length && ++queue.groups.turn % 2 === 0;
  let jobId: string | undefined;
  let reopen = 0;
  let full = false;
  if (groupsFirst) {
    const taken = queue.groups.take(now, fits);
    jobId = taken.jobId;
    if (taken.jobId === undefined) ({ reopen, full = false } = taken);
  }
  if (jobId === undefined && !full) ({ jobId, full } = takeUngrouped(queue, fits));
  if (jobId === undefined && !groupsFirst && !full) {
    const taken = queue.groups.take(now, fits);
    jobId = taken.jobId;
    if (taken.jobId === undefined) ({ reopen, full = false } = taken);
  }
  if (full) return none();
  if (jobId === undefined) {
    let wakeTs = queue.nextDelayedDueTs();
    if (reopen > 0) {
      // A rate-limited group reopens then: a wake-up time, not a limit on the queue.
      if (wakeTs === 0 || reopen < wakeTs) wakeTs = reopen;
      queue.signalWakeBy(reopen);
    }
    return none(0, wakeTs);
  }

  const hash = queue.jobs.get(jobId)!.hash;
  if (maxJobs !== undefined && hash.defa === undefined) countStart(queue, duration, now);
  const started = startJob(queue, jobId, identity, now);
  // The signal this worker consumed may have stood for more jobs: let the next idle one try.
  if (!batch) queue.signals.signal(queue.markerBox, '0', 0);
  return { kind: 'job', jobId, hash: started };
}

/**
 * Up to batchSize jobs, each taken as fetchNextJob takes one; the batch stops before the job
 * whose data would bring its data past maxBatchBytes (the first job always comes).
 */
export function fetchJobBatch(
  queue: MemoryQueue,
  request: BatchFetchRequest,
  now: number,
): BatchFetchResult {
  const state: BatchState = { later: false };
  const first = fetchNextJob(queue, request.identity, now, state);
  if (first.kind === 'none') return first;
  const jobs = [{ jobId: first.jobId, hash: first.hash }];
  state.later = true;
  const bytes = (data: string | undefined) => Buffer.byteLength(data ?? '');
  let used = bytes(first.hash.data);
  if (request.maxBatchBytes > 0) {
    state.fits = (jobId) => used + bytes(queue.jobs.get(jobId)?.hash.data) <= request.maxBatchBytes;
  }
  while (jobs.length < request.batchSize) {
    const next = fetchNextJob(queue, request.identity, now, state);
    if (next.kind === 'none') break;
    jobs.push({ jobId: next.jobId, hash: next.hash });
    used += bytes(next.hash.data);
  }
  queue.signals.signal(queue.markerBox, '0', 0);
  return { kind: 'batch', jobs };
}
