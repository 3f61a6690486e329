/**
 * A memory job's children (the records a parent keeps, docs/redis-keys.md): reads of the four
 * records, parking a running job until its children finish, and detaching one child.
 */
import { dependencyJobJson, type DependencyJobJson } from '../../job/dependency-json';
import { ValidationError } from '../../errors';
import { checkInteger, checkJobId } from '../operation-validation';
import type {
  DependencyItem,
  DependencyKind,
  DependencyListing,
  DependencyPageRequest,
  RawDependencies,
  RawDependencyPages,
} from '../queue-operations';
import type { MemoryJob, MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { refusal } from './refusals';

const KINDS: readonly DependencyKind[] = ['processed', 'unprocessed', 'ignored', 'failed'];

/** One kind of record as entries (keys only for pending and failed children). */
function record(job: MemoryJob | undefined, kind: DependencyKind): [string, string][] | string[] {
  if (!job) return [];
  switch (kind) {
    case 'processed':
      return [...job.processed];
    case 'unprocessed':
      return [...job.dependencies];
    case 'ignored':
      return [...job.ignored];
    case 'failed':
      return job.unsuccessful.ids();
  }
}

export function getDependencies(queue: MemoryQueue, jobId: string): RawDependencies {
  checkJobId(jobId);
  const job = queue.jobs.get(jobId);
  return {
    processed: record(job, 'processed') as [string, string][],
    unprocessed: record(job, 'unprocessed') as string[],
    ignored: record(job, 'ignored') as [string, string][],
    failed: record(job, 'failed') as string[],
  };
}

/** Pages by offset: `cursor` is where the page starts, `next` 0 once a kind is read to its end. */
export function getDependencyPages(
  queue: MemoryQueue,
  jobId: string,
  requests: Partial<Record<DependencyKind, DependencyPageRequest>>,
): RawDependencyPages {
  checkJobId(jobId);
  const job = queue.jobs.get(jobId);
  const pages: RawDependencyPages = {};
  for (const kind of KINDS) {
    const request = requests[kind];
    if (!request) continue;
    checkInteger(`${kind}.cursor`, request.cursor, 0);
    checkInteger(`${kind}.count`, request.count, 1);
    const all = record(job, kind);
    const end = request.cursor + request.count;
    const next = end < all.length ? end : 0;
    const slice = all.slice(request.cursor, end);
    if (kind === 'processed' || kind === 'ignored') {
      pages[kind] = { next, entries: slice as [string, string][] };
    } else {
      pages[kind] = { next, keys: slice as string[] };
    }
  }
  return pages;
}

export function getDependencyCounts(
  queue: MemoryQueue,
  jobId: string,
  kinds: DependencyKind[],
): number[] {
  checkJobId(jobId);
  for (const kind of kinds) {
    if (!KINDS.includes(kind)) {
      throw new ValidationError(`Unknown kind of dependency "${String(kind)}"`);
    }
  }
  const job = queue.jobs.get(jobId);
  return kinds.map((kind) => record(job, kind).length);
}

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One page ([start, end], end -1 to the end) of a parent's pending or processed children. */
export function getDependencyListing(
  store: MemoryStore,
  queue: MemoryQueue,
  parentId: string,
  type: 'processed' | 'pending',
  start: number,
  end: number,
): DependencyListing {
  checkJobId(parentId);
  if (type !== 'processed' && type !== 'pending') {
    throw new ValidationError(
      `getDependencies type must be "processed" or "pending" (got ${type})`,
    );
  }
  checkInteger('start', start, 0);
  checkInteger('end', end, -1);
  const parent = queue.jobs.get(parentId);
  const entries: [string, string | undefined][] =
    type === 'processed'
      ? [...(parent?.processed ?? [])]
      : [...(parent?.dependencies ?? [])].map((key) => [key, undefined]);
  const page = end >= 0 && end < start ? [] : entries.slice(start, end < 0 ? undefined : end + 1);
  const items: DependencyItem[] = [];
  const jobs: DependencyJobJson[] = [];
  for (const [key, value] of page) {
    items.push(value === undefined ? { id: key } : { id: key, v: parseValue(value) });
    const child = store.jobAt(key);
    if (child) jobs.push(dependencyJobJson(child.id, { ...child.job.hash }));
  }
  return { items, jobs, total: entries.length };
}

/**
 * Parks an active job in waiting-children while it has a pending child (or while `childKey`
 * is pending); false when nothing is pending and it stays active.
 */
export function moveToWaitingChildren(
  queue: MemoryQueue,
  jobId: string,
  token: string,
  childKey?: string,
): boolean {
  checkJobId(jobId);
  if (typeof token !== 'string' || token.length === 0) {
    throw new ValidationError('moveToWaitingChildren needs the lock token of the running job');
  }
  const operation = 'moveToWaitingChildren';
  const job = queue.jobs.get(jobId);
  if (!job) throw refusal('job-missing', jobId, operation);
  if (job.unsuccessful.size > 0) throw refusal('failed-children', jobId, operation);
  const pending =
    childKey !== undefined ? job.dependencies.has(childKey) : job.dependencies.size > 0;
  if (!pending) return false;
  if (token !== '0') {
    const owner = queue.lockOwner(jobId);
    if (owner === undefined) throw refusal('lock-missing', jobId, operation);
    if (owner !== token) throw refusal('lock-mismatch', jobId, operation);
  }
  if (!queue.removeFromActive(jobId)) throw refusal('not-in-state', jobId, operation);
  if (token !== '0') {
    queue.locks.delete(jobId);
    queue.stalled.delete(jobId);
  }
  // A grouped job waiting for children holds no group slot.
  queue.groups.leaveActiveOf(jobId);
  queue.waitingChildren.set(jobId, Date.now());
  queue.emit('waiting-children', { jobId, prev: 'active' });
  return true;
}

/**
 * The child stops being a pending child of its parent (`parentKey`, else the one it names) and
 * forgets it; a parent left with none while it waits goes to the front of its line.
 */
export function removeChildDependency(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  parentKey?: string,
): boolean {
  checkJobId(jobId);
  if (parentKey !== undefined && (typeof parentKey !== 'string' || !parentKey.includes(':'))) {
    throw new ValidationError('parentKey must be a full job key "<prefix>:<queue>:<id>"');
  }
  const child = queue.jobs.get(jobId);
  if (!child) throw refusal('job-missing', jobId, 'removeChildDependency');
  const key = parentKey ?? child.hash.parentKey;
  if (key === undefined) return false;
  const parent = store.jobAt(key);
  if (!parent) throw refusal('parent-missing', jobId, 'removeChildDependency');
  if (!parent.job.dependencies.delete(queue.keys.job(jobId))) return false;
  delete child.hash.parentKey;
  delete child.hash.parent;
  if (parent.job.dependencies.size === 0 && parent.queue.waitingChildren.delete(parent.id)) {
    parent.queue.enqueueReady(parent.id, 0, true);
    parent.queue.emit('waiting', { jobId: parent.id, prev: 'waiting-children' });
  }
  return true;
}
