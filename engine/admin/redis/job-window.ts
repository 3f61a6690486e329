/**
 * One window of a state's jobs, read by lua/readJobWindow-2.lua: ids from one end of the state's
 * list or sorted set, and the asked fields of each job, sized in Redis so a huge job is passed
 * over instead of copied. The console's search and export walk a state window by window.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { runScript } from '../../backend/redis/run-script';
import { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import type { QueueCountState } from './queues';

/** Which end a walk starts from: the most recently added jobs, or the earliest. */
export type ScanOrder = 'newest' | 'oldest';

export const SCAN_ORDERS: readonly ScanOrder[] = ['newest', 'oldest'];

export type WindowEntry =
  /** `bytes`: the size of its sized fields (what the budgets count). */
  | { id: string; mark: 'read'; fields: Record<string, string>; bytes: number }
  | { id: string; mark: 'gone' }
  | { id: string; mark: 'too-large'; bytes: number };

export interface JobWindow {
  /** Jobs in the state when the window was read. */
  length: number;
  /** The ids looked at, in walk order; fewer than asked when the state or the budget ended. */
  entries: WindowEntry[];
  /** Bytes of sized fields read into this window. */
  bytes: number;
}

export interface WindowRequest {
  state: QueueCountState;
  order: ScanOrder;
  offset: number;
  count: number;
  /**
   * Bytes this window may read in all; it stops before the first job that does not fit. Keep it
   * at least `jobMaxBytes` for a window that must move on: a smaller one may read nothing.
   */
  budgetBytes: number;
  /** A job whose sized fields are larger is passed over as too large. */
  jobMaxBytes: number;
  /** Fields sized against the budgets (the ones that can be large). */
  sized: readonly string[];
  /** Fields read without sizing: the few digits of the numbers bullmq writes. */
  unsized: readonly string[];
}

const LIST_STATES = new Set<QueueCountState>(['waiting', 'active']);

/** The state's Redis key: `waiting` is the wait list (bullmq 6 keeps paused jobs there too). */
function stateKey(keys: QueueKeys, state: QueueCountState): string {
  return keys.base + (state === 'waiting' ? 'wait' : state);
}

/**
 * Lists get new jobs at the head (LPUSH), so newest-first reads from the head; sorted sets
 * ascend by score (finish time, due time, priority), so newest-first reads from the top score.
 */
function startEnd(state: QueueCountState, order: ScanOrder): 'head' | 'tail' {
  const list = LIST_STATES.has(state);
  return (order === 'newest') === list ? 'head' : 'tail';
}

export async function readJobWindow(
  client: RedisClient,
  prefix: string,
  name: string,
  request: WindowRequest,
): Promise<JobWindow> {
  const keys = new QueueKeys(prefix, name);
  const fields = [...request.sized, ...request.unsized];
  const reply = (await runScript(
    client,
    'readJobWindow',
    scriptKeys('readJobWindow', keys, { state: stateKey(keys, request.state) }),
    [
      LIST_STATES.has(request.state) ? 'list' : 'zset',
      startEnd(request.state, request.order),
      request.offset,
      request.count,
      request.budgetBytes,
      request.jobMaxBytes,
      request.sized.length,
      ...fields,
    ],
  )) as (string | number | null)[];
  const length = Number(reply[0]);
  const looked = Number(reply[1]);
  const entries: WindowEntry[] = [];
  let bytes = 0;
  let at = 2;
  for (let n = 0; n < looked; n++) {
    const id = String(reply[at++]);
    const mark = reply[at++];
    if (mark === 'L') {
      entries.push({ id, mark: 'too-large', bytes: Number(reply[at++]) });
    } else if (mark === 'g') {
      entries.push({ id, mark: 'gone' });
    } else {
      const size = Number(reply[at++]);
      const values: Record<string, string> = {};
      for (const field of fields) {
        const value = reply[at++];
        if (value !== null && value !== undefined) values[field] = String(value);
      }
      bytes += size;
      entries.push({ id, mark: 'read', fields: values, bytes: size });
    }
  }
  return { length, entries, bytes };
}
