/**
 * Storing a new job in the memory storage (the semantics of lua/includes/insertJob.lua): its
 * hash, its place (waiting-children, delayed, its group's line, prioritized or wait), its
 * parent link, its deduplication window, and the events announcing it.
 */
import type { NewJob } from '../queue-backend';
import { newMemoryJob, type MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { deleteJob, releaseParentIfDone } from './parents';
import type { Refusal } from './refusals';

export type InsertOutcome =
  { jobId: string; outcome: 'stored' | 'duplicate' | 'deduplicated' } | { refusal: Refusal };

export interface InsertOptions {
  /** A flow releases its parents itself once every node is in. */
  deferParentRelease?: boolean;
  /** The parent was written earlier in the same call: no need to look for it. */
  parentWritten?: boolean;
}

/**
 * Deduplication (the `de` option): returns the owner's id when the new job is a duplicate that
 * must not be stored, else undefined (the window now names the new job).
 */
function deduplicate(queue: MemoryQueue, job: NewJob, newId: string, now: number) {
  const de = job.deduplication!;
  const ttl = de.ttl !== undefined && de.ttl > 0 ? de.ttl : undefined;
  let window = queue.dedup.get(de.id);
  if (window?.expiresAt !== undefined && window.expiresAt <= now) window = undefined;
  // A window without expiry whose owner is gone is stale.
  if (window && window.expiresAt === undefined && !queue.jobs.has(window.jobId)) window = undefined;
  if (!window) {
    queue.dedup.set(de.id, { jobId: newId, expiresAt: ttl && now + ttl });
    return undefined;
  }
  const owner = window.jobId;
  if (de.replace) {
    if (queue.delayed.delete(owner) || queue.groups.delayed.delete(owner)) {
      deleteJob(queue, owner, false);
      queue.emit('removed', { jobId: owner, prev: 'delayed' });
      queue.emit('deduplicated', {
        jobId: newId,
        deduplicationId: de.id,
        deduplicatedJobId: owner,
      });
      const expiresAt = de.extend && ttl ? now + ttl : window.expiresAt;
      queue.dedup.set(de.id, { jobId: newId, expiresAt });
      return undefined;
    }
    return owner;
  }
  if (de.extend && ttl) window.expiresAt = now + ttl;
  queue.emit('deduplicated', { jobId: owner, deduplicationId: de.id, deduplicatedJobId: newId });
  const ownerSet = queue.delayed.has(owner)
    ? queue.delayed
    : queue.groups.delayed.has(owner)
      ? queue.groups.delayed
      : undefined;
  if (de.reschedule && ownerSet) {
    const dueTs = job.timestamp + job.delay;
    queue.jobs.get(owner)!.hash.delay = String(job.delay);
    ownerSet.set(owner, queue.delayedScore(ownerSet, dueTs));
    queue.emit('delayed', { jobId: owner, delay: dueTs });
    queue.signalNextDelayed();
  }
  return owner;
}

/** A job that exists already joins the requested parent, unless another live parent owns it. */
function attachExisting(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  job: NewJob,
  options: InsertOptions,
  now: number,
): Refusal | undefined {
  const parent = job.parent!;
  const existing = queue.jobs.get(jobId)!;
  const current = existing.hash.parentKey;
  if (current !== undefined && current !== parent.key && store.jobAt(current)) {
    return 'parent-taken';
  }
  const parentAt = store.jobAt(parent.key);
  const childKey = queue.keys.job(jobId);
  if (parentAt) {
    if (queue.completed.has(jobId)) {
      parentAt.job.processed.set(childKey, existing.hash.returnvalue ?? 'null');
      if (!options.deferParentRelease) releaseParentIfDone(parentAt, now);
    } else {
      parentAt.job.dependencies.add(childKey);
    }
  }
  existing.hash.parentKey = parent.key;
  existing.hash.parent = JSON.stringify(parent.link);
  return undefined;
}

export function insertJob(
  store: MemoryStore,
  queue: MemoryQueue,
  job: NewJob,
  now: number,
  options: InsertOptions = {},
): InsertOutcome {
  const parentAt = job.parent ? store.jobAt(job.parent.key) : undefined;
  if (job.parent && !options.parentWritten && !parentAt) return { refusal: 'parent-missing' };
  // The counter moves on every add, custom ids and duplicates included, as bullmq's does.
  queue.idCounter += 1;
  const jobId = job.customId ?? String(queue.idCounter);
  if (job.customId !== undefined && queue.jobs.has(jobId)) {
    if (job.parent) {
      const refused = attachExisting(store, queue, jobId, job, options, now);
      if (refused) return { refusal: refused };
    }
    queue.emit('duplicated', { jobId });
    return { jobId, outcome: 'duplicate' };
  }

  const fields: Record<string, string> = { ...job.fields };
  if (job.deduplication) {
    const owner = deduplicate(queue, job, jobId, now);
    if (owner !== undefined) return { jobId: owner, outcome: 'deduplicated' };
    fields.deid = job.deduplication.id;
  }
  if (job.groupId !== undefined) {
    fields.gid = job.groupId;
    queue.groups.register(job.groupId);
  }
  const hash: Record<string, string> = {
    name: job.name,
    data: job.data,
    opts: job.opts,
    timestamp: String(job.timestamp),
    delay: String(job.delay),
    priority: String(job.priority),
  };
  if (job.parent) {
    hash.parentKey = job.parent.key;
    hash.parent = JSON.stringify(job.parent.link);
  }
  queue.jobs.set(jobId, newMemoryJob({ ...hash, ...fields }));
  queue.emit('added', { jobId, name: job.name });

  if (job.asParent) {
    queue.waitingChildren.set(jobId, job.timestamp);
    queue.emit('waiting-children', { jobId });
  } else if (job.delay > 0) {
    const dueTs = job.timestamp + job.delay;
    queue.delay(jobId, dueTs);
    queue.emit('delayed', { jobId, delay: dueTs });
  } else {
    queue.enqueueReady(jobId, job.priority, job.lifo);
    queue.emit('waiting', { jobId });
  }
  // The parent (written earlier in the same flow when parentWritten) records its new child.
  (parentAt ?? (job.parent && store.jobAt(job.parent.key)))?.job.dependencies.add(
    queue.keys.job(jobId),
  );
  return { jobId, outcome: 'stored' };
}
