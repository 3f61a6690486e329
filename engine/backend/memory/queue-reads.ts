/** Read-only operations of a memory queue: counts, listings, ranges, a job's state, logs. */
import { DEFAULTS } from '../../defaults';
import { checkIndexRange, checkInteger, checkJobId } from '../operation-validation';
import type { RawJobHash } from '../queue-backend';
import type { JobState, JobStateReply } from '../queue-operations';
import type { MemoryQueue } from './memory-queue';
import { indexRange } from './scored-ids';
import { stateCount, stateIds, stateName, statesOf } from './state-views';

export function getCounts(queue: MemoryQueue, types: JobState[]): Record<string, number> {
  statesOf(types);
  const counts: Record<string, number> = {};
  for (const type of types) counts[type] = stateCount(queue, stateName(type));
  return counts;
}

/** Ids in [start, end] of each state, states in the order given, each id once. */
export function getRanges(
  queue: MemoryQueue,
  types: JobState[],
  start: number,
  end: number,
  asc: boolean,
): string[] {
  checkIndexRange(start, end);
  const seen = new Set<string>();
  for (const state of statesOf(types)) {
    for (const id of indexRange(stateIds(queue, state, asc), start, end)) seen.add(id);
  }
  return [...seen];
}

export function getJobsInStates(
  queue: MemoryQueue,
  types: JobState[],
  start: number,
  end: number,
  asc: boolean,
): { id: string; hash: RawJobHash }[] {
  return getRanges(queue, types, start, end, asc).flatMap((id) => {
    const job = queue.jobs.get(id);
    return job ? [{ id, hash: { ...job.hash } }] : [];
  });
}

export function getState(queue: MemoryQueue, jobId: string): JobStateReply {
  checkJobId(jobId);
  return (queue.stateOf(jobId) as JobStateReply | undefined) ?? 'unknown';
}

export function getLogs(
  queue: MemoryQueue,
  jobId: string,
  start: number,
  end: number,
  asc: boolean,
): { logs: string[]; count: number } {
  checkJobId(jobId);
  checkIndexRange(start, end);
  const logs = queue.jobs.get(jobId)?.logs ?? [];
  const ordered = asc ? logs : [...logs].reverse();
  return { logs: indexRange(ordered, start, end), count: logs.length };
}

/** Delayed jobs due strictly before `timestamp`, or all of them. */
export function getDelayedCount(queue: MemoryQueue, timestamp?: number): number {
  if (timestamp === undefined) return queue.delayed.size + queue.groups.delayed.size;
  checkInteger('timestamp', timestamp, 0);
  const bound = timestamp * 4096 - 1;
  return [queue.delayed, queue.groups.delayed].reduce(
    (sum, set) => sum + set.countBetween(-Infinity, bound),
    0,
  );
}

/** Waiting jobs per priority: 0 is the wait list (grouped ready jobs included). */
export function getCountsPerPriority(
  queue: MemoryQueue,
  priorities: number[],
): Record<string, number> {
  if (!Array.isArray(priorities)) {
    throw new TypeError('getCountsPerPriority expects an array of priorities');
  }
  for (const priority of priorities) checkInteger('priority', priority, 0, DEFAULTS.maxPriority);
  const counts: Record<string, number> = {};
  for (const priority of new Set(priorities)) {
    const low = priority * 2 ** 32;
    counts[String(priority)] =
      priority === 0
        ? queue.wait.length + queue.groups.waitingCount()
        : queue.prioritized.countBetween(low, low + 2 ** 32 - 1);
  }
  return counts;
}
