/**
 * In which states each of the console's single-job actions works, and, for the other states, a
 * refusal a person can act on: what the job is doing and what to do instead. The job page's
 * buttons and the server's check (job-actions.ts) read this one module, so the page offers an
 * action exactly where the server would accept it. It imports nothing at run time, so a client
 * component can import it without pulling the engine into the browser bundle.
 */
import type { QueueCountState } from './redis/queues';

/** A job's state as read: `unknown` when its id is in no state list. */
export type JobActionState = QueueCountState | 'unknown';

export type JobActionKind =
  'retry' | 'promote' | 'delay' | 'priority' | 'remove' | 'data' | 'duplicate' | 'cancel';

const EVERY_STATE: readonly JobActionState[] = [
  'waiting',
  'prioritized',
  'delayed',
  'waiting-children',
  'active',
  'completed',
  'failed',
  'unknown',
];

export const JOB_ACTION_STATES: Record<JobActionKind, readonly JobActionState[]> = {
  // The engine re-runs a job from the failed or completed set only.
  retry: ['failed', 'completed'],
  promote: ['delayed'],
  // changeDelay moves a job within the delayed set; any other job has no due time to move.
  delay: ['delayed'],
  // A priority decides the job's place in line: it counts until the job starts (a delayed or
  // waiting-for-children job takes it into line with it), never after.
  priority: ['waiting', 'prioritized', 'delayed', 'waiting-children'],
  // A running job is locked by its worker, and removal refuses a locked job.
  remove: EVERY_STATE.filter((state) => state !== 'active'),
  data: EVERY_STATE,
  duplicate: EVERY_STATE,
  cancel: ['active'],
};

/** What a job in each state is doing, as the refusals say it after "Job 6 ". */
const DOING: Record<JobActionState, string> = {
  waiting: 'is waiting for a worker',
  prioritized: 'is waiting for a worker (in priority order)',
  delayed: 'is delayed',
  'waiting-children': 'is waiting for its child jobs to finish',
  active: 'is running on a worker',
  completed: 'has completed',
  failed: 'has failed',
  unknown: 'is in no state list (left behind by an interrupted operation)',
};

/** Why the action needs the states it needs. */
const NEEDS: Record<JobActionKind, string> = {
  retry: 'only a failed or completed job can be retried',
  promote: 'only a delayed job can be promoted',
  delay: 'only a delayed job has a delay to change',
  priority: 'a priority only matters until a job starts',
  remove: 'its worker holds it locked, so it cannot be removed while it runs',
  data: '',
  duplicate: '',
  cancel: 'only a running job can be cancelled',
};

/** What to do instead, by the state the job is in. */
function instead(action: JobActionKind, state: JobActionState): string {
  if (state === 'active') {
    return action === 'remove'
      ? 'Cancel it, or wait until it finishes, then remove it.'
      : 'Wait until it finishes, or cancel it.';
  }
  if (state === 'completed' || state === 'failed') {
    return action === 'cancel' ? 'There is nothing left to stop.' : 'Retry it to run it again.';
  }
  if (action === 'cancel') return 'Remove it to keep it from running.';
  if (state === 'waiting-children') return 'It runs once its child jobs finish.';
  if (state === 'unknown') return 'Duplicate it to run a copy, or remove it.';
  if (state === 'delayed') return 'Promote it to run it now.';
  // Waiting or prioritized.
  return action === 'delay'
    ? 'To hold it back, pause the queue, or remove it and add it again with a delay.'
    : 'It runs as soon as a worker is free.';
}

export function jobActionOffered(action: JobActionKind, state: JobActionState): boolean {
  return JOB_ACTION_STATES[action].includes(state);
}

/** The refusal for `action` on a job in `state`, or null when the action works there. */
export function jobActionRefusal(
  action: JobActionKind,
  jobId: string,
  state: JobActionState,
): string | null {
  if (jobActionOffered(action, state)) return null;
  return `Job ${jobId} ${DOING[state]}: ${NEEDS[action]}. ${instead(action, state)}`;
}

/** A grouped job's line is first come, first served: it has no priority but 0. */
export function groupedPriorityRefusal(jobId: string, groupId: string): string {
  return `Job ${jobId} belongs to tenant group "${groupId}", whose jobs run in the order they came: it has no priority to change.`;
}

/** The pending run of a job scheduler is the scheduler's to replace, not a person's to remove. */
export function schedulerJobRefusal(jobId: string): string {
  return `Job ${jobId} is the next run of a job scheduler, which would only add it again: pause or remove the scheduler on the queue page instead.`;
}

/** The job went away between the page's read and the action. */
export function jobGoneRefusal(jobId: string): string {
  return `Job ${jobId} no longer exists: it was removed meanwhile (by someone, by its worker's removeOnComplete / removeOnFail, or by a clean). Nothing was changed.`;
}

/** The job changed under the action and the action would work now: worth another try. */
export function jobChangedRefusal(jobId: string, state: JobActionState): string {
  return `Job ${jobId} changed while the action ran (it ${DOING[state]} now), so nothing was changed. Look at it again and retry if it still makes sense.`;
}
