/**
 * Parents and children in the memory storage (the semantics of lua/includes/onChildFinished,
 * releaseParent, removeJobDetached and returnChildToParent): what a child's outcome or removal
 * does to its parent, possibly in another queue of the same storage.
 */
import type { MemoryQueue } from './memory-queue';
import type { JobAt, MemoryStore } from './memory-store';

/** The flags a child's `parent` field carries (bullmq's short names). */
interface ParentFlags {
  fpof?: boolean;
  cpof?: boolean;
  idof?: boolean;
  rdof?: boolean;
}

function flagsOf(parentJson: string | undefined): ParentFlags {
  if (!parentJson) return {};
  try {
    const parsed = JSON.parse(parentJson) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as ParentFlags) : {};
  } catch {
    return {};
  }
}

/** The parent a job names (its `parentKey`), when that parent exists. */
function parentOf(store: MemoryStore, queue: MemoryQueue, jobId: string): JobAt | undefined {
  const parentKey = queue.jobs.get(jobId)?.hash.parentKey;
  return parentKey === undefined ? undefined : store.jobAt(parentKey);
}

/**
 * A parent whose children are done leaves waiting-children: delayed when it has a delay, else
 * to the front of its line (wait, prioritized or its group's).
 */
function releaseParent(parent: MemoryQueue, parentId: string, now: number): void {
  const hash = parent.jobs.get(parentId)!.hash;
  const delay = Number(hash.delay) || 0;
  if (delay > 0) {
    parent.delay(parentId, now + delay);
    parent.emit('delayed', { jobId: parentId, delay: now + delay });
    return;
  }
  parent.enqueueReady(parentId, Number(hash.priority) || 0, true);
  parent.emit('waiting', { jobId: parentId, prev: 'waiting-children' });
}

/** Releases the parent when it has no pending child and still waits for them. */
export function releaseParentIfDone(parent: JobAt, now: number): void {
  if (parent.job.dependencies.size === 0 && parent.queue.waitingChildren.delete(parent.id)) {
    releaseParent(parent.queue, parent.id, now);
  }
}

/** What a child's final outcome does to its parent (nothing for a job without one). */
export function onChildFinished(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  outcome: 'completed' | 'failed',
  value: string,
  now: number,
): void {
  const child = queue.jobs.get(jobId);
  const parent = parentOf(store, queue, jobId);
  if (!child || !parent) return;
  const childKey = queue.keys.job(jobId);
  const pending = parent.job.dependencies;
  if (outcome === 'completed') {
    if (pending.delete(childKey)) {
      parent.job.processed.set(childKey, value);
      releaseParentIfDone(parent, now);
    }
    return;
  }
  const flags = flagsOf(child.hash.parent);
  if (flags.fpof) {
    if (pending.delete(childKey)) parent.job.unsuccessful.set(childKey, now);
    failParentLater(parent, `child ${childKey} failed`, now);
  } else if (flags.cpof) {
    pending.delete(childKey);
    parent.job.ignored.set(childKey, value);
    if (parent.queue.waitingChildren.delete(parent.id)) releaseParent(parent.queue, parent.id, now);
  } else if (flags.idof) {
    if (pending.delete(childKey)) {
      parent.job.ignored.set(childKey, value);
      releaseParentIfDone(parent, now);
    }
  } else if (flags.rdof) {
    if (pending.delete(childKey)) releaseParentIfDone(parent, now);
  }
}

/**
 * failParentOnFailure: the parent gets a deferred failure (`defa`) and, when it waits, is
 * released now so that a worker fails it without running its processor.
 */
function failParentLater(parent: JobAt, reason: string, now: number): void {
  const { queue, id, job } = parent;
  let released = queue.waitingChildren.delete(id);
  if (!released && (queue.delayed.delete(id) || queue.groups.delayed.delete(id))) {
    released = true;
  }
  if (released) {
    job.hash.defa = reason;
    job.hash.delay = '0';
    releaseParent(queue, id, now);
  } else if (!queue.failed.has(id)) {
    job.hash.defa = reason;
  }
}

/** A parent left without pending children goes to the front of its line, ignoring its delay. */
function releaseParentToWait(parent: MemoryQueue, parentId: string): void {
  parent.enqueueReady(parentId, 0, true);
  parent.emit('waiting', { jobId: parentId, prev: 'waiting-children' });
}

/**
 * Takes a job out of its parent's pending children. Returns that parent when it must be
 * removed too (hard mode, same queue, no child left pending); otherwise a parent left with
 * none is released.
 */
export function detachFromParent(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  hard: boolean,
): JobAt | undefined {
  const parent = parentOf(store, queue, jobId);
  if (!parent) return undefined;
  const pending = parent.job.dependencies;
  if (!pending.delete(queue.keys.job(jobId)) || pending.size > 0) return undefined;
  if (!parent.queue.waitingChildren.delete(parent.id)) return undefined;
  if (hard && parent.queue === queue) return parent;
  releaseParentToWait(parent.queue, parent.id);
  return undefined;
}

/**
 * Deletes a job and what hangs off it: its deduplication window when it owns it, its group
 * slot and delayed entry, its lock. Taking it out of its state is the caller's part.
 */
export function deleteJob(queue: MemoryQueue, jobId: string, dropDedup = true): void {
  const job = queue.jobs.get(jobId);
  if (!job) return;
  const dedupId = job.hash.deid;
  if (dropDedup && dedupId !== undefined && queue.dedup.get(dedupId)?.jobId === jobId) {
    queue.dedup.delete(dedupId);
  }
  const gid = job.hash.gid;
  if (gid !== undefined) {
    queue.groups.leaveActive(gid, jobId);
    queue.groups.delayed.delete(jobId);
  }
  queue.jobs.delete(jobId);
  queue.locks.delete(jobId);
  queue.stalled.delete(jobId);
}

/**
 * Detaches the job from its parent, then deletes it; in hard mode (drain, clean, obliterate) a
 * parent in the same queue left without children goes too, and so on up.
 */
export function removeJobDetached(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  hard: boolean,
): void {
  let next: { queue: MemoryQueue; id: string } | undefined = { queue, id: jobId };
  while (next) {
    const parent = detachFromParent(store, next.queue, next.id, hard);
    takeOutOfState(next.queue, next.id);
    deleteJob(next.queue, next.id);
    next = parent;
  }
}

/** removeOnComplete / removeOnFail: detached (never hard), deduplication left alone. */
export function deleteFinishedJob(store: MemoryStore, queue: MemoryQueue, jobId: string): void {
  detachFromParent(store, queue, jobId, false);
  takeOutOfState(queue, jobId);
  deleteJob(queue, jobId, false);
}

/** Takes a job out of whatever state holds it; returns that state's event name. */
export function takeOutOfState(queue: MemoryQueue, jobId: string): string {
  const gid = queue.jobs.get(jobId)?.hash.gid;
  if (gid !== undefined) {
    if (queue.groups.delayed.delete(jobId)) return 'delayed';
    if (queue.groups.removeFromLine(gid, jobId)) return 'wait';
  }
  if (queue.completed.delete(jobId)) return 'completed';
  if (queue.failed.delete(jobId)) return 'failed';
  if (queue.delayed.delete(jobId)) return 'delayed';
  if (queue.prioritized.delete(jobId)) return 'prioritized';
  if (queue.removeFromWait(jobId)) return 'wait';
  if (queue.removeFromActive(jobId)) return 'active';
  if (queue.waitingChildren.delete(jobId)) return 'waiting-children';
  return 'unknown';
}

/**
 * A finished child that is retried becomes pending again in its live parent (the record its
 * outcome left there goes); a parent that was already released is not moved back.
 */
export function returnChildToParent(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  finishedState: 'completed' | 'failed',
): void {
  const parent = parentOf(store, queue, jobId);
  if (!parent) return;
  const childKey = queue.keys.job(jobId);
  const recorded =
    finishedState === 'failed'
      ? parent.job.unsuccessful.delete(childKey) || parent.job.ignored.delete(childKey)
      : parent.job.processed.delete(childKey);
  if (recorded) parent.job.dependencies.add(childKey);
}
