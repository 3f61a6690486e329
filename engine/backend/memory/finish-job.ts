/**
 * Moving a job out of active in the memory storage (the semantics of lua/includes/leaveActive,
 * finishActiveJob, trimFinishedJobs, collectMetrics and afterFinish): the lock check every
 * move makes, and what completing or failing for good does to the job, its group, its
 * deduplication window, its parent, the finished set, the metrics and the event log.
 */
import type { KeepRule } from '../queue-backend';
import type { MemoryMetrics, MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { deleteFinishedJob, onChildFinished } from './parents';
import type { Refusal } from './refusals';

/**
 * The job must exist and be locked by `token` ('0': the caller took no lock); then `fields` are
 * written and it leaves active. A refusal leaves everything as it was.
 */
export function leaveActive(
  queue: MemoryQueue,
  jobId: string,
  token: string,
  fields: Record<string, string> = {},
): Refusal | undefined {
  const job = queue.jobs.get(jobId);
  if (!job) return 'job-missing';
  if (token !== '0') {
    const owner = queue.lockOwner(jobId);
    if (owner === undefined) return 'lock-missing';
    if (owner !== token) return 'lock-mismatch';
  }
  if (!queue.active.includes(jobId)) return 'not-in-state';
  if (token !== '0') {
    queue.locks.delete(jobId);
    queue.stalled.delete(jobId);
  }
  Object.assign(job.hash, fields);
  queue.removeFromActive(jobId);
  return undefined;
}

export interface FinishStep {
  jobId: string;
  token: string;
  outcome: 'completed' | 'failed';
  value: string;
  keep: KeepRule;
  attempts: number;
  fields?: Record<string, string>;
  metricsMaxDataPoints?: number;
  now: number;
}

/** Completes or fails an active job for good; a refusal leaves everything as it was. */
export function finishActiveJob(
  store: MemoryStore,
  queue: MemoryQueue,
  step: FinishStep,
): Refusal | undefined {
  const { jobId, outcome, value, now } = step;
  const job = queue.jobs.get(jobId);
  if (outcome === 'completed' && job) {
    if (job.dependencies.size > 0) return 'pending-children';
    if (job.unsuccessful.size > 0) return 'failed-children';
  }
  const refused = leaveActive(queue, jobId, step.token, step.fields);
  if (refused) return refused;
  const hash = job!.hash;
  if (hash.gid !== undefined) queue.groups.leaveActive(hash.gid, jobId);
  // A deduplication window without expiry closes when its owner finishes.
  const dedupId = hash.deid;
  const window = dedupId === undefined ? undefined : queue.dedup.get(dedupId);
  if (window && window.expiresAt === undefined && window.jobId === jobId) {
    queue.dedup.delete(dedupId!);
  }
  onChildFinished(store, queue, jobId, outcome, value, now);

  const attemptsMade = (Number(hash.atm) || 0) + 1;
  const field = outcome === 'completed' ? 'returnvalue' : 'failedReason';
  if (step.keep.count === 0) {
    deleteFinishedJob(store, queue, jobId);
  } else {
    (outcome === 'completed' ? queue.completed : queue.failed).set(jobId, now);
    hash[field] = value;
    hash.finishedOn = String(now);
    hash.atm = String(attemptsMade);
    if (outcome === 'failed') delete hash.defa;
  }
  queue.emit(outcome, { jobId, [field]: value, prev: 'active' });
  if (outcome === 'failed' && attemptsMade >= step.attempts) {
    queue.emit('retries-exhausted', { jobId, attemptsMade });
  }
  if (step.metricsMaxDataPoints !== undefined) {
    collectMetrics(queue.metrics[outcome], step.metricsMaxDataPoints, now);
  }
  if (step.keep.count !== 0) trimFinished(store, queue, outcome, now, step.keep);
  return undefined;
}

/** removeOnComplete / removeOnFail: jobs older than `age` s (at most `limit`), then beyond `count`. */
function trimFinished(
  store: MemoryStore,
  queue: MemoryQueue,
  outcome: 'completed' | 'failed',
  now: number,
  keep: KeepRule,
): void {
  const set = outcome === 'completed' ? queue.completed : queue.failed;
  if (keep.age !== undefined) {
    for (const id of set.upTo(now - keep.age * 1000, keep.limit ?? 1000)) {
      deleteFinishedJob(store, queue, id);
    }
  }
  if (keep.count > 0) {
    const newestFirst = set.ids().reverse();
    for (const id of newestFirst.slice(keep.count, keep.count + 1000)) {
      deleteFinishedJob(store, queue, id);
    }
  }
}

/** Per-minute counts, as bullmq keeps them: one point per minute, newest first. */
function collectMetrics(metrics: MemoryMetrics, maxDataPoints: number, now: number): void {
  const previous = metrics.count;
  metrics.count += 1;
  if (metrics.prevTS === undefined) {
    metrics.prevTS = now;
    metrics.prevCount = 0;
    return;
  }
  const minutes = Math.min(
    Math.floor(now / 60_000) - Math.floor(metrics.prevTS / 60_000),
    maxDataPoints,
  );
  if (minutes <= 0) return;
  const points = [previous - metrics.prevCount, ...Array<number>(minutes - 1).fill(0)];
  metrics.data = [...points.reverse(), ...metrics.data].slice(0, maxDataPoints);
  metrics.prevCount = previous;
  metrics.prevTS = now;
}

/**
 * After a finish that handed out no next job: `drained` when nothing is left to run, and a wake
 * for the freed slot under a global concurrency.
 */
export function afterFinish(queue: MemoryQueue): void {
  const ready = queue.readyCount();
  if (ready === 0 && queue.active.length === 0) queue.emit('drained');
  if (ready > 0 && queue.meta.concurrency !== undefined && !queue.isPausedOrMaxed()) {
    queue.signals.signal(queue.markerBox, '0', 0);
  }
}
