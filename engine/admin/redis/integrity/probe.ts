/**
 * Everything the checker needs to know about a batch of job ids, read in one round trip: the
 * hash's relevant fields, membership in every state structure (sorted sets by ZSCORE, lists by
 * LPOS from each end, bounded to INTEGRITY_LIMITS.listLookup entries), the lock and stalled mark, and the
 * child's entry in its parent's records. As a pipeline it is a cheap first look; atomic, it is
 * one consistent snapshot, used to confirm a suspect before it is reported (a job moving between
 * two reads must never look like two states or none). The snapshot is one read-only script call
 * (engine/backend/redis/atomic-reads.ts), not a MULTI, so the checker also runs on a Redis at
 * maxmemory, which refuses every command queued in a MULTI.
 */
import type { Redis } from 'ioredis';
import { readAtomically, type ReadCommand } from '../../../backend/redis/atomic-reads';
import { INTEGRITY_LIMITS } from './limits';
import { LIST_STATES, stateKey, ZSET_STATES, type StateName } from './states';

export interface ProbeItem {
  id: string;
  /** The job's group (from an earlier read), so its group line is looked up too. */
  gid: string | null;
  /** The child's parent key (from an earlier read). */
  parentKey: string | null;
  /** Confirm the id is still in this window of the state it was read from (MULTI only). */
  self?: { state: StateName; gid?: string; from: number; to: number };
}

export interface ProbeFacts {
  exists: boolean;
  fields: {
    gid: string | null;
    atm: string | null;
    attemptsMade: string | null;
    opts: string | null;
    parentKey: string | null;
    parent: string | null;
    timestamp: string | null;
  };
  /** States holding the id, as far as the bounded lookups could tell. */
  states: Set<StateName>;
  /** A list longer than the lookup bounds did not show the id: it may still be there. */
  unknown: boolean;
  /** Those lists. */
  unknownLists: { state: StateName; key: string }[];
  /**
   * Per list looked up (by key): the index of the id's first entry from the head and of its last
   * entry (from the tail), each null when not within the lookup bound of its end. Two different
   * indexes mean the id is in the list twice.
   */
  listPositions: Record<string, { head: number | null; tail: number | null }>;
  inGroupActive: boolean;
  locked: boolean;
  stalled: boolean;
  prioritizedScore: number | null;
  /** The parent exists and lists the child in one of its records (null: no parent read). */
  parentListed: boolean | null;
  parentExists: boolean;
  /** undefined when no self window was asked. */
  inSelf?: boolean;
}

export interface ProbeBatch {
  facts: ProbeFacts[];
  stalledCheckRunning: boolean;
  pc: number;
}

type Command = ReadCommand;
const FIELDS = ['gid', 'atm', 'attemptsMade', 'opts', 'parentKey', 'parent', 'timestamp'] as const;

export async function probe(
  client: Redis,
  base: string,
  items: readonly ProbeItem[],
  atomic: boolean,
): Promise<ProbeBatch> {
  const bound = INTEGRITY_LIMITS.listLookup;
  const commands: Command[] = [];
  const at = (command: Command): number => commands.push(command) - 1;
  const lists = new Map<string, number>();
  const listLength = (key: string): number => {
    let index = lists.get(key);
    if (index === undefined) {
      index = at(['llen', key]);
      lists.set(key, index);
    }
    return index;
  };
  const stalledCheck = at(['exists', `${base}stalled-check`]);
  const pc = at(['get', `${base}pc`]);
  const plans = items.map((item) => {
    const key = base + item.id;
    const plan = {
      exists: at(['exists', key]),
      fields: at(['hmget', key, ...FIELDS]),
      zsets: ZSET_STATES.map((state) => at(['zscore', base + state, item.id])),
      lists: [] as { state: StateName; key: string; head: number; tail: number; len: number }[],
      groupActive: -1,
      lock: at(['exists', `${key}:lock`]),
      stalled: at(['sismember', `${base}stalled`, item.id]),
      parent: [] as number[],
      parentExists: -1,
      self: -1,
    };
    const listKeys: [StateName, string][] = LIST_STATES.map((state) => [state, base + state]);
    if (item.gid !== null) {
      listKeys.push(['group', stateKey(base, 'group', item.gid)]);
      plan.groupActive = at(['sismember', `${base}group:${item.gid}:active`, item.id]);
    }
    for (const [state, listKey] of listKeys) {
      // Both ends: entries join a list at its head or its tail.
      plan.lists.push({
        state,
        key: listKey,
        head: at(['lpos', listKey, item.id, 'MAXLEN', bound]),
        tail: at(['lpos', listKey, item.id, 'RANK', -1, 'MAXLEN', bound]),
        len: listLength(listKey),
      });
    }
    if (item.parentKey !== null) {
      plan.parentExists = at(['exists', item.parentKey]);
      plan.parent = [
        at(['sismember', `${item.parentKey}:dependencies`, key]),
        at(['hexists', `${item.parentKey}:processed`, key]),
        at(['hexists', `${item.parentKey}:failed`, key]),
        at(['zscore', `${item.parentKey}:unsuccessful`, key]),
      ];
    }
    if (atomic && item.self && !ZSET_STATES.includes(item.self.state as never)) {
      plan.self = at([
        'lrange',
        stateKey(base, item.self.state, item.self.gid),
        item.self.from,
        item.self.to,
      ]);
    }
    return plan;
  });

  const replies = atomic
    ? await readAtomically(client, base, commands)
    : ((await client.pipeline(commands).exec()) ?? []);
  // A command on a key of another type (a hand-made key) errors alone: read it as absent.
  const reply = (index: number): unknown => {
    const [error, value] = replies[index] ?? [null, null];
    return error ? null : value;
  };
  const truthy = (index: number) => Number(reply(index)) === 1;

  const facts = items.map((item, i): ProbeFacts => {
    const plan = plans[i]!;
    const values = (reply(plan.fields) as (string | null)[] | null) ?? [];
    const fields = Object.fromEntries(
      FIELDS.map((name, f) => [name, values[f] ?? null]),
    ) as ProbeFacts['fields'];
    const states = new Set<StateName>();
    let prioritizedScore: number | null = null;
    ZSET_STATES.forEach((state, z) => {
      const score = reply(plan.zsets[z]!);
      if (score === null || score === undefined) return;
      states.add(state);
      if (state === 'prioritized') prioritizedScore = Number(score);
    });
    const unknownLists: ProbeFacts['unknownLists'] = [];
    const listPositions: ProbeFacts['listPositions'] = {};
    for (const list of plan.lists) {
      const head = reply(list.head);
      const tail = reply(list.tail);
      listPositions[list.key] = {
        head: head === null || head === undefined ? null : Number(head),
        tail: tail === null || tail === undefined ? null : Number(tail),
      };
      if (head !== null || tail !== null) states.add(list.state);
      else if (Number(reply(list.len)) > 2 * bound) {
        unknownLists.push({ state: list.state, key: list.key });
      }
    }
    const parentListed =
      plan.parent.length === 0
        ? null
        : plan.parent.some((index) => {
            const value = reply(index);
            return value !== null && value !== 0;
          });
    const result: ProbeFacts = {
      exists: truthy(plan.exists),
      fields,
      states,
      unknown: unknownLists.length > 0,
      unknownLists,
      listPositions,
      inGroupActive: plan.groupActive >= 0 && truthy(plan.groupActive),
      locked: truthy(plan.lock),
      stalled: truthy(plan.stalled),
      prioritizedScore,
      parentListed,
      parentExists: plan.parentExists >= 0 && truthy(plan.parentExists),
    };
    if (atomic && item.self) {
      result.inSelf =
        plan.self >= 0
          ? ((reply(plan.self) as string[] | null) ?? []).includes(item.id)
          : states.has(item.self.state);
    }
    return result;
  });
  return { facts, stalledCheckRunning: truthy(stalledCheck), pc: Number(reply(pc) ?? 0) };
}
