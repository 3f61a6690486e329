/**
 * Actions on a selection of job ids (the queue page's multi-select): at most
 * SELECTION_LIMIT ids per call, each acted on by itself, with a per-id outcome.
 */
import type { RedisClient } from '../backend/redis/connection';
import { actOn, type BulkAction } from './redis/bulk';
import { jobKeyKind } from './redis/job-id';
import { queueHandle } from './queue-handle';

export const SELECTION_LIMIT = 100;

export interface SelectionResult {
  action: BulkAction;
  done: string[];
  /** Ids that were missing, in a state the action does not apply to, or locked. */
  skipped: string[];
}

export async function actOnSelection(
  client: RedisClient,
  prefix: string,
  name: string,
  action: BulkAction,
  ids: readonly string[],
): Promise<SelectionResult> {
  const queue = queueHandle(client, prefix, name);
  const result: SelectionResult = { action, done: [], skipped: [] };
  for (const id of ids.slice(0, SELECTION_LIMIT)) {
    if ((await jobKeyKind(client, prefix, name, id)) !== 'job') {
      result.skipped.push(id);
      continue;
    }
    const job = await queue.getJob(id);
    const state = job ? await job.getState() : 'unknown';
    const applies =
      action === 'remove'
        ? state !== 'active'
        : action === 'promote'
          ? state === 'delayed'
          : state === 'failed' || state === 'completed';
    if (job && applies && (await actOn(queue, job, action, state))) result.done.push(id);
    else result.skipped.push(id);
  }
  return result;
}
