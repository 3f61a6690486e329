/**
 * Runs one safe repair (lua/repair*.lua, through the script registry like every OxMQ script:
 * EVALSHA, EVAL on NOSCRIPT) for one finding and reads its `{applied, detail}` answer. The
 * scripts search lists only near their ends (lua/includes/listSearch.lua) and answer
 * `deep:<lists>` when an id may sit deeper inside a long list; that answer becomes the skip
 * reason here, with what the operator can do instead (docs/integrity.md, "Repairs").
 */
import { DEFAULTS } from '../../../defaults';
import type { Redis } from 'ioredis';
import { runScript } from '../../../backend/redis/run-script';
import type { QueueKeys } from '../../../queue/keys';
import { scriptKeys } from '../../../scripts/script-keys';
import { INTEGRITY_LIMITS } from './limits';
import { stateKey } from './states';

export interface ScriptAnswer {
  applied: boolean;
  detail: string;
}

/** Group ids read from `groups:known` per round trip while looking for a dangling id. */
const GROUP_PAGE = 500;
/** Entries searched from each end of a list: LIST_END_WINDOW of lua/includes/listSearch.lua. */
const LIST_END_WINDOW = 10_000;

/** The skip reason for a `deep:<lists>` answer; `instead` says what the operator can do. */
function deepReason(lists: string, instead: string): string {
  const names = lists.split(',').join(', ');
  return (
    `deep inside a long list (${names}): not within ${LIST_END_WINDOW} entries of either end, ` +
    `where a repair looks without holding Redis; ${instead}`
  );
}

function answer(reply: unknown, instead: string): ScriptAnswer {
  const [applied, detail] = reply as [number, string];
  const text = String(detail);
  return {
    applied: applied === 1,
    detail: text.startsWith('deep:') ? deepReason(text.slice('deep:'.length), instead) : text,
  };
}

/**
 * The tenant groups whose line may hold `id`, found by paging `groups:known`: those whose line
 * holds it near an end, and those whose line is too long to rule it out (the script reports it).
 */
async function groupsHolding(client: Redis, base: string, id: string): Promise<string[]> {
  const holding: string[] = [];
  for (let offset = 0; ; offset += GROUP_PAGE) {
    const gids = await client.zrange(`${base}groups:known`, offset, offset + GROUP_PAGE - 1);
    if (gids.length === 0) return holding;
    const pipeline = client.pipeline();
    for (const gid of gids) {
      const line = stateKey(base, 'group', gid);
      pipeline.lpos(line, id, 'MAXLEN', LIST_END_WINDOW);
      pipeline.call('LPOS', line, id, 'RANK', -1, 'MAXLEN', LIST_END_WINDOW);
      pipeline.llen(line);
    }
    const replies = (await pipeline.exec()) ?? [];
    gids.forEach((gid, i) => {
      const [head, tail, length] = replies.slice(3 * i, 3 * i + 3);
      // A key of another type holds no id: its errors leave the group out.
      if (head?.[0] || tail?.[0] || length?.[0]) return;
      const near = head?.[1] !== null || tail?.[1] !== null;
      if (near || Number(length?.[1]) > 2 * LIST_END_WINDOW) holding.push(gid);
    });
    if (gids.length < GROUP_PAGE) return holding;
  }
}

const REMOVE_INSTEAD =
  'queue.remove(id) takes it out with one scan of the list (docs/reliability.md, "Large backlogs")';

export async function removeDanglingId(
  client: Redis,
  keys: QueueKeys,
  id: string,
): Promise<ScriptAnswer> {
  const script = scriptKeys('repairDanglingId', keys);
  const run = async (gids: string[]) =>
    answer(await runScript(client, 'repairDanglingId', script, [id, ...gids]), REMOVE_INSTEAD);
  const plain = await run([]);
  if (plain.applied || plain.detail === 'the job hash exists') return plain;
  // Grouped ids sit in their group's line only; the group is unknown once the hash is gone.
  const gids = await groupsHolding(client, keys.base, id);
  return gids.length === 0 ? plain : run(gids);
}

export async function markStalled(
  client: Redis,
  keys: QueueKeys,
  id: string,
): Promise<ScriptAnswer> {
  const jobHash = keys.job(id);
  const script = scriptKeys('repairMarkStalled', keys, { jobHash, lock: `${jobHash}:lock` });
  return answer(
    await runScript(client, 'repairMarkStalled', script, [id]),
    'the stalled check marks every active job when it runs',
  );
}

export async function raisePriorityCounter(
  client: Redis,
  keys: QueueKeys,
  id: string,
): Promise<ScriptAnswer> {
  const script = scriptKeys('repairPriorityCounter', keys);
  return answer(await runScript(client, 'repairPriorityCounter', script, [id]), '');
}

export async function trimEvents(client: Redis, keys: QueueKeys): Promise<ScriptAnswer> {
  const args = [
    String(DEFAULTS.maxLenEvents),
    String(INTEGRITY_LIMITS.eventsSlackMin),
    String(INTEGRITY_LIMITS.eventsSlackRatio),
  ];
  const script = scriptKeys('repairTrimEvents', keys);
  return answer(await runScript(client, 'repairTrimEvents', script, args), '');
}

export async function placeFinished(
  client: Redis,
  keys: QueueKeys,
  id: string,
): Promise<ScriptAnswer> {
  const script = scriptKeys('repairPlaceFinished', keys);
  return answer(
    await runScript(client, 'repairPlaceFinished', script, [id]),
    'repair again once the list is shorter',
  );
}
