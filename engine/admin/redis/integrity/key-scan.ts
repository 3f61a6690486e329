/**
 * One SCAN step over the queue's keys (`MATCH <base>*`): job hashes no state holds, parents'
 * `:dependencies` sets naming a child whose hash is gone, job locks without a TTL, tenant groups'
 * active sets holding ids that left `active`, and the `marker` key (those three in
 * engine/admin/redis/integrity/key-checks.ts).
 */
import type { Redis } from 'ioredis';
import { readAtomically, type ReadCommand } from '../../../backend/redis/atomic-reads';
import { escapeGlob } from '../queues';
import { jobIdOfQueueKey } from '../../../backend/redis/remove-orphaned-jobs';
import { record, type IntegrityReport } from './invariants';
import { isStateless } from './judge';
import { INTEGRITY_LIMITS } from './limits';
import { probe, type ProbeFacts, type ProbeItem } from './probe';
import { isLegacyMarker } from './states';
import { checkGroupActive, checkLockTtls, checkMarker } from './key-checks';
import { linksOf } from './state-walk';

const DEPENDENCIES = ':dependencies';
const LOCK = ':lock';
/** `group:<gid>:active`; group ids are `[A-Za-z0-9_.-]` (docs/redis-keys.md). */
const GROUP_ACTIVE = /^group:([A-Za-z0-9_.-]+):active$/;

/** Runs one SCAN step from `cursor`; returns the next cursor and the work done. */
export async function scanStep(
  client: Redis,
  base: string,
  report: IntegrityReport,
  cursor: string,
  count: number,
): Promise<{ cursor: string; work: number }> {
  const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(base)}*`, 'COUNT', count);
  const hashIds: string[] = [];
  const parents: string[] = [];
  const locked: string[] = [];
  const groups: string[] = [];
  let marker = false;
  for (const key of new Set(keys)) {
    const rest = key.slice(base.length);
    const group = GROUP_ACTIVE.exec(rest)?.[1];
    if (group !== undefined) groups.push(group);
    if (rest === 'marker') marker = true;
    const id = jobIdOfQueueKey(rest);
    if (id === undefined || isLegacyMarker(id)) continue;
    if (rest === id) hashIds.push(id);
    else if (rest === id + DEPENDENCIES) parents.push(id);
    else if (rest === id + LOCK) locked.push(id);
  }
  let work = keys.length + 1;
  if (hashIds.length > 0) work += await checkHashes(client, base, report, hashIds);
  for (const parentId of parents) {
    work += await checkDependencies(client, base, report, parentId);
  }
  if (locked.length > 0) await checkLockTtls(client, base, report, locked);
  for (const gid of groups) work += await checkGroupActive(client, base, report, gid);
  if (marker) await checkMarker(client, base, report);
  return { cursor: next, work };
}

/** Checks job hashes for a state; returns the list entries paged through. */
async function checkHashes(
  client: Redis,
  base: string,
  report: IntegrityReport,
  ids: string[],
): Promise<number> {
  const links = await linksOf(client, base, ids);
  const items: ProbeItem[] = ids.map((id, i) => ({ id, ...links[i]! }));
  const first = await probe(client, base, items, false);
  const suspects: ProbeItem[] = [];
  const unplaced = new Map<string, ProbeFacts>();
  first.facts.forEach((facts, i) => {
    if (isStateless(facts)) suspects.push(items[i]!);
    else if (isStateless(facts, true)) unplaced.set(items[i]!.id, facts);
  });
  const { absent, paged } = await pageLongLists(client, unplaced);
  for (const id of unplaced.keys()) {
    if (absent.has(id)) suspects.push(items[ids.indexOf(id)]!);
    else if (!paged.found.has(id)) report.unverified += 1;
  }
  if (suspects.length === 0) return paged.entries;
  const confirmed = await probe(client, base, suspects, true);
  confirmed.facts.forEach((facts, i) => {
    const id = suspects[i]!.id;
    if (isStateless(facts, absent.has(id))) record(report, 'hash-without-state', id);
  });
  return paged.entries;
}

/**
 * Pages through the long lists the bounded lookups could not rule out, in LRANGE windows, up to
 * INTEGRITY_LIMITS.listPage entries: ids seen are placed; ids not seen in any list that was
 * paged to its end are absent. (Entries joining a list meanwhile land at an end, where the
 * confirming lookup sees them.)
 */
async function pageLongLists(
  client: Redis,
  unplaced: Map<string, ProbeFacts>,
): Promise<{ absent: Set<string>; paged: { entries: number; found: Set<string> } }> {
  const found = new Set<string>();
  const absent = new Set<string>();
  if (unplaced.size === 0) return { absent, paged: { entries: 0, found } };
  const lists = new Set<string>();
  for (const facts of unplaced.values()) for (const list of facts.unknownLists) lists.add(list.key);
  const page = INTEGRITY_LIMITS.listLookup;
  let entries = 0;
  const complete = new Set<string>();
  for (const key of lists) {
    let offset = 0;
    for (;;) {
      if (entries >= INTEGRITY_LIMITS.listPage) break;
      const window = await client.lrange(key, offset, offset + page - 1);
      entries += window.length;
      for (const id of window) if (unplaced.has(id)) found.add(id);
      offset += window.length;
      if (window.length < page) {
        complete.add(key);
        break;
      }
    }
  }
  for (const [id, facts] of unplaced) {
    if (!found.has(id) && facts.unknownLists.every((list) => complete.has(list.key))) {
      absent.add(id);
    }
  }
  return { absent, paged: { entries, found } };
}

/** SSCANs one parent's pending children; returns how many were examined. */
async function checkDependencies(
  client: Redis,
  base: string,
  report: IntegrityReport,
  parentId: string,
): Promise<number> {
  const key = base + parentId + DEPENDENCIES;
  let cursor = '0';
  let examined = 0;
  do {
    const [next, children] = await client.sscan(key, cursor, 'COUNT', INTEGRITY_LIMITS.window);
    cursor = next;
    examined += children.length;
    if (children.length === 0) continue;
    const exists = (await client.pipeline(children.map((c) => ['exists', c])).exec()) ?? [];
    const missing = children.filter((_, i) => Number(exists[i]?.[1]) === 0);
    if (missing.length === 0) continue;
    // Confirmed in one atomic read (a link removed with its child is no finding), at maxmemory too.
    const replies = await readAtomically(
      client,
      key,
      missing.flatMap((child): ReadCommand[] => [
        ['sismember', key, child],
        ['exists', child],
      ]),
    );
    missing.forEach((child, i) => {
      const listed = Number(replies[2 * i]?.[1]) === 1;
      const gone = Number(replies[2 * i + 1]?.[1]) === 0;
      if (listed && gone) record(report, 'parent-link', `${parentId} -> ${child}`);
    });
  } while (cursor !== '0');
  return examined;
}
