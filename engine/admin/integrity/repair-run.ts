/**
 * Runs one safe repair (engine/admin/integrity/repair-scripts.ts) for one finding: builds the
 * script's keys under the queue's base and reads its `{applied, detail}` answer.
 */
import type { Redis } from 'ioredis';
import { INTEGRITY_LIMITS } from './limits';
import {
  MARK_STALLED,
  PLACE_FINISHED,
  RAISE_PRIORITY_COUNTER,
  REMOVE_DANGLING_ID,
  TRIM_EVENTS,
} from './repair-scripts';
import { stateKey } from './states';

export interface ScriptAnswer {
  applied: boolean;
  detail: string;
}

const DEFAULT_MAX_EVENTS = 10_000;
const LISTS = ['wait', 'paused', 'active'] as const;
const ZSETS = [
  'prioritized',
  'delayed',
  'group-delayed',
  'waiting-children',
  'completed',
  'failed',
] as const;
/** Group ids read from `groups:known` per round trip while looking for a dangling id. */
const GROUP_PAGE = 500;

async function run(client: Redis, lua: string, keys: string[], args: string[]) {
  const [applied, detail] = (await client.eval(lua, keys.length, ...keys, ...args)) as [
    number,
    string,
  ];
  return { applied: applied === 1, detail: String(detail) };
}

/** The tenant groups whose line holds `id`, found by paging `groups:known`. */
async function groupsHolding(client: Redis, base: string, id: string): Promise<string[]> {
  const holding: string[] = [];
  for (let offset = 0; ; offset += GROUP_PAGE) {
    const gids = await client.zrange(`${base}groups:known`, offset, offset + GROUP_PAGE - 1);
    if (gids.length === 0) return holding;
    const pipeline = client.pipeline();
    for (const gid of gids) pipeline.lpos(stateKey(base, 'group', gid), id);
    const replies = (await pipeline.exec()) ?? [];
    gids.forEach((gid, i) => {
      const [error, position] = replies[i] ?? [null, null];
      if (!error && position !== null) holding.push(gid);
    });
    if (gids.length < GROUP_PAGE) return holding;
  }
}

export async function removeDanglingId(
  client: Redis,
  base: string,
  id: string,
): Promise<ScriptAnswer> {
  const keys = [
    base + id,
    ...LISTS.map((state) => base + state),
    ...ZSETS.map((state) => base + state),
    `${base}stalled`,
    `${base}groups`,
  ];
  const plain = await run(client, REMOVE_DANGLING_ID, keys, [id]);
  if (plain.applied || plain.detail !== 'the id is in no state structure any more') return plain;
  // Grouped ids sit in their group's line only; the group is unknown once the hash is gone.
  const gids = await groupsHolding(client, base, id);
  if (gids.length === 0) return plain;
  const lines = gids.map((gid) => stateKey(base, 'group', gid));
  return run(client, REMOVE_DANGLING_ID, [...keys, ...lines], [id, ...gids]);
}

export function markStalled(client: Redis, base: string, id: string): Promise<ScriptAnswer> {
  const keys = [base + id, `${base}active`, `${base}${id}:lock`, `${base}stalled`];
  return run(client, MARK_STALLED, keys, [id]);
}

export function raisePriorityCounter(
  client: Redis,
  base: string,
  id: string,
): Promise<ScriptAnswer> {
  return run(client, RAISE_PRIORITY_COUNTER, [`${base}prioritized`, `${base}pc`], [id]);
}

export function trimEvents(client: Redis, base: string): Promise<ScriptAnswer> {
  const args = [
    String(DEFAULT_MAX_EVENTS),
    String(INTEGRITY_LIMITS.eventsSlackMin),
    String(INTEGRITY_LIMITS.eventsSlackRatio),
  ];
  return run(client, TRIM_EVENTS, [`${base}meta`, `${base}events`], args);
}

export async function placeFinished(
  client: Redis,
  base: string,
  id: string,
): Promise<ScriptAnswer> {
  const gid = (await client.hget(base + id, 'gid')) ?? '';
  const keys = [
    base + id,
    `${base}${id}:lock`,
    ...LISTS.map((state) => base + state),
    ...ZSETS.map((state) => base + state),
    // Unused placeholders (under the base) when the job has no group.
    gid ? stateKey(base, 'group', gid) : `${base}group::wait`,
    gid ? `${base}group:${gid}:active` : `${base}group::active`,
  ];
  return run(client, PLACE_FINISHED, keys, [id, gid]);
}
