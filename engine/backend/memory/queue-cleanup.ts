/**
 * Destructive operations of a memory queue (the semantics of lua/drain, cleanJobsInSet,
 * obliterate and removeJob): each is one atomic step here, where Redis runs bounded chunks.
 */
import { QueueStateError } from '../../errors';
import { checkCleanState, checkInteger, checkJobId } from '../operation-validation';
import type { CleanState } from '../queue-operations';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { deleteJob, detachFromParent, removeJobDetached, takeOutOfState } from './parents';
import { refusal } from './refusals';

/** Most descendants removeJob(…, removeChildren) removes with a job, as on Redis. */
const MAX_REMOVED_DESCENDANTS = 10_000;

/** True when `jobId` is the pending iteration of a live scheduler (`repeat:<id>:<millis>`). */
function isCurrentSchedulerIteration(queue: MemoryQueue, jobId: string): boolean {
  const match = /^repeat:(.*):([^:]*)$/.exec(jobId);
  if (!match) return false;
  const next = queue.schedulerRuns.score(match[1]!);
  return next !== undefined && next === Number(match[2]);
}

/** Removes waiting (and delayed) jobs, grouped ones too; keeps schedulers' iterations. */
export function drain(store: MemoryStore, queue: MemoryQueue, includeDelayed: boolean): number {
  const ids = [
    ...queue.wait,
    ...queue.prioritized.ids(),
    ...(includeDelayed ? queue.delayed.ids() : []),
    ...queue.groups.linesInIdOrder().flat(),
    ...(includeDelayed ? queue.groups.delayed.ids() : []),
  ];
  let removed = 0;
  for (const id of ids) {
    if (isCurrentSchedulerIteration(queue, id) || !queue.jobs.has(id)) continue;
    removeJobDetached(store, queue, id, true);
    removed += 1;
  }
  return removed;
}

/** The timestamp fields a job of each state is judged by (the first one present). */
const JUDGED_FIELDS: Record<string, string[]> = {
  wait: ['finishedOn', 'processedOn', 'timestamp'],
  paused: ['finishedOn', 'processedOn', 'timestamp'],
  active: ['finishedOn', 'processedOn', 'timestamp'],
  delayed: ['processedOn', 'timestamp'],
  prioritized: ['timestamp'],
};

/** The entries a clean of `state` examines, oldest first. */
function cleanCandidates(queue: MemoryQueue, state: CleanState, cutoff: number): string[] {
  switch (state) {
    case 'completed':
      return queue.completed.upTo(cutoff);
    case 'failed':
      return queue.failed.upTo(cutoff);
    case 'wait':
      return [
        ...queue.wait,
        ...[...queue.groups.known].sort().flatMap((gid) => queue.groups.line(gid)),
      ];
    case 'paused':
      return [];
    case 'active':
      return [...queue.active];
    case 'delayed':
      return [...queue.delayed.ids(), ...queue.groups.delayed.ids()];
    case 'prioritized':
      return queue.prioritized.ids();
  }
}

/**
 * Removes jobs of `state` finished (or created) at or before now - grace, examining at most
 * `limit` entries oldest first (0: all). Locked active jobs and schedulers' pending iterations
 * stay. Returns the ids removed; the log gets one `cleaned` event.
 */
export function clean(
  store: MemoryStore,
  queue: MemoryQueue,
  grace: number,
  limit: number,
  state: CleanState,
): string[] {
  checkInteger('grace', grace, 0);
  checkInteger('limit', limit, 0);
  checkCleanState(state);
  const cutoff = Date.now() - grace;
  const candidates = cleanCandidates(queue, state, cutoff);
  const examined = limit === 0 ? candidates : candidates.slice(0, limit);
  const removed = examined.filter((id) => {
    const hash = queue.jobs.get(id)?.hash;
    if (!hash) return true;
    if (state === 'completed' || state === 'failed') return true;
    if (isCurrentSchedulerIteration(queue, id)) return false;
    if (state === 'active' && queue.lockOwner(id) !== undefined) return false;
    const field = JUDGED_FIELDS[state]!.find((name) => hash[name] !== undefined);
    return field === undefined || Number(hash[field]) <= cutoff;
  });
  for (const id of removed) {
    if (queue.jobs.has(id)) removeJobDetached(store, queue, id, true);
    else takeOutOfState(queue, id);
  }
  queue.emit('cleaned', { count: removed.length });
  return removed;
}

/** Deletes a paused queue with every job, scheduler and group. */
export function obliterate(
  store: MemoryStore,
  queue: MemoryQueue,
  opts: { force: boolean; count: number },
): void {
  checkInteger('count', opts.count, 1);
  if (!queue.isPaused()) throw new QueueStateError('Cannot obliterate non-paused queue');
  if (!opts.force && queue.active.length > 0) {
    throw new QueueStateError('Cannot obliterate queue with active jobs');
  }
  for (const id of [...queue.jobs.keys()]) {
    if (queue.jobs.has(id)) removeJobDetached(store, queue, id, true);
  }
  queue.schedulers.clear();
  queue.schedulerRuns.clear();
  queue.groups.clear();
  queue.events.clear();
  queue.history.clear();
  queue.stalled.clear();
  queue.stalledCheckUntil = 0;
  queue.limiter = undefined;
  queue.startLog = [];
  queue.idCounter = 0;
  queue.priorityCounter = 0;
  queue.metrics.completed = { count: 0, prevCount: 0, data: [] };
  queue.metrics.failed = { count: 0, prevCount: 0, data: [] };
  queue.signals.clear(queue.markerBox);
  for (const field of Object.keys(queue.meta)) delete queue.meta[field];
}

/** The job and, with removeChildren, its descendants (depth first, bounded). */
function withDescendants(store: MemoryStore, queue: MemoryQueue, jobId: string) {
  const nodes = [{ queue, id: jobId }];
  const visited = new Set([queue.keys.job(jobId)]);
  for (let i = 0; i < nodes.length && nodes.length <= MAX_REMOVED_DESCENDANTS; i++) {
    const job = nodes[i]!.queue.jobs.get(nodes[i]!.id);
    if (!job) continue;
    const children = [
      ...job.dependencies,
      ...job.processed.keys(),
      ...job.ignored.keys(),
      ...job.unsuccessful.ids(),
    ];
    for (const childKey of children) {
      if (visited.has(childKey) || nodes.length > MAX_REMOVED_DESCENDANTS) continue;
      visited.add(childKey);
      const child = store.jobAt(childKey);
      if (child) nodes.push({ queue: child.queue, id: child.id });
    }
  }
  return nodes;
}

/**
 * 1 when removed (also when it did not exist), 0 when it or a descendant is locked. Throws for
 * a scheduler's pending iteration.
 */
export function removeJob(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  removeChildren: boolean,
): number {
  checkJobId(jobId);
  if (isCurrentSchedulerIteration(queue, jobId)) throw refusal('scheduler-job', jobId, 'removeJob');
  const nodes = removeChildren ? withDescendants(store, queue, jobId) : [{ queue, id: jobId }];
  if (nodes.some((node) => node.queue.lockOwner(node.id) !== undefined)) return 0;
  detachFromParent(store, queue, jobId, false);
  // Children before parents; each `removed` event names the state the job was in.
  for (const node of [...nodes].reverse()) {
    if (!node.queue.jobs.has(node.id)) continue;
    const state = takeOutOfState(node.queue, node.id);
    deleteJob(node.queue, node.id);
    node.queue.emit('removed', { jobId: node.id, prev: state });
  }
  return 1;
}

/**
 * Removes a parent's pending children, each with its descendants, except locked and failed
 * ones; returns how many were removed.
 */
export function removeUnprocessedChildren(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
): number {
  checkJobId(jobId);
  const pending = queue.jobs.get(jobId)?.dependencies;
  if (!pending) return 0;
  let removed = 0;
  for (const childKey of [...pending]) {
    const child = store.jobAt(childKey);
    if (!child || child.queue.failed.has(child.id)) continue;
    if (child.queue.lockOwner(child.id) !== undefined) continue;
    if (removeJob(store, child.queue, child.id, true) === 1) removed += 1;
  }
  return removed;
}
