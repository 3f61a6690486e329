/**
 * How a reader sees each state of a memory queue, in bullmq's listing order: ascending is
 * oldest (or next to run) first. Tenant groups' jobs belong to their state: waiting is the wait
 * list followed by each ready group's line in group id order (each line read in the listing's
 * direction, as on Redis: lua/includes/groupedStateViews.lua); delayed merges the plain and
 * grouped delayed jobs by due time.
 */
import { checkJobStates } from '../operation-validation';
import type { JobState } from '../queue-operations';
import type { MemoryQueue } from './memory-queue';
import { ScoredIds } from './scored-ids';

/** The storage's name of a state: `waiting` and `wait` are the same, `paused` a legacy list. */
export function stateName(state: JobState): string {
  return state === 'waiting' ? 'wait' : state;
}

function mergedByScore(sets: ScoredIds[]): string[] {
  const merged = new ScoredIds();
  for (const set of sets) for (const id of set.ids()) merged.set(id, set.score(id)!);
  return merged.ids();
}

/** Every id of `state`, in the listing's direction. */
export function stateIds(queue: MemoryQueue, state: string, asc: boolean): string[] {
  const ordered = (ids: string[]) => (asc ? ids : ids.reverse());
  switch (state) {
    case 'wait':
      return [queue.wait, ...queue.groups.linesInIdOrder()].flatMap((line) => ordered([...line]));
    case 'paused':
      // bullmq 5's paused list: this storage never fills it.
      return [];
    case 'active':
      return ordered([...queue.active]);
    case 'delayed':
      return ordered(mergedByScore([queue.delayed, queue.groups.delayed]));
    case 'prioritized':
      return ordered(queue.prioritized.ids());
    case 'completed':
      return ordered(queue.completed.ids());
    case 'failed':
      return ordered(queue.failed.ids());
    case 'waiting-children':
      return ordered(queue.waitingChildren.ids());
    default:
      return [];
  }
}

/** How many jobs `state` holds. */
export function stateCount(queue: MemoryQueue, state: string): number {
  switch (state) {
    case 'wait':
      return queue.wait.length + queue.groups.waitingCount();
    case 'paused':
      return 0;
    case 'active':
      return queue.active.length;
    case 'delayed':
      return queue.delayed.size + queue.groups.delayed.size;
    case 'prioritized':
      return queue.prioritized.size;
    case 'completed':
      return queue.completed.size;
    case 'failed':
      return queue.failed.size;
    case 'waiting-children':
      return queue.waitingChildren.size;
    default:
      return 0;
  }
}

/** The distinct storage names of `types`, in the order given (validated). */
export function statesOf(types: JobState[]): string[] {
  checkJobStates(types);
  return [...new Set(types.map(stateName))];
}
