/**
 * One window of a state structure: its ids read (LRANGE / ZRANGE by offset), probed in one
 * pipeline, and the suspects confirmed in one MULTI before they are recorded.
 */
import type { Redis } from 'ioredis';
import { record, type IntegrityReport } from './invariants';
import { judgeMember, type ListEntry } from './judge';
import { INTEGRITY_LIMITS } from './limits';
import { probe, type ProbeItem } from './probe';
import { isLegacyMarker, stateKey, ZSET_STATES, type StateName } from './states';

/** The gid and parentKey of each id (null for a missing hash or another key type). */
export async function linksOf(
  client: Redis,
  base: string,
  ids: readonly string[],
): Promise<{ gid: string | null; parentKey: string | null }[]> {
  const replies =
    (await client.pipeline(ids.map((id) => ['hmget', base + id, 'gid', 'parentKey'])).exec()) ?? [];
  return ids.map((_, i) => {
    const [error, value] = replies[i] ?? [null, null];
    const [gid = null, parentKey = null] = error ? [] : ((value as (string | null)[]) ?? []);
    return { gid, parentKey };
  });
}

/** Where each of `ids` (the window `read` without legacy markers) sits in its list. */
function listEntries(
  read: readonly string[],
  ids: readonly string[],
  key: string,
  offset: number,
  gid: string | undefined,
): ListEntry[] {
  const indexes = new Map<string, number[]>();
  read.forEach((id, index) => indexes.set(id, [...(indexes.get(id) ?? []), index]));
  const next = new Map<string, number>();
  return ids.map((id) => {
    const all = indexes.get(id)!;
    const nth = next.get(id) ?? 0;
    next.set(id, nth + 1);
    return {
      key,
      position: offset + all[nth]!,
      twiceInWindow: all.length > 1,
      firstInWindow: nth === 0,
      gid,
    };
  });
}

/** Reads `size` ids of `state` from `offset`; checks them into `report`; returns the ids read. */
export async function walkWindow(
  client: Redis,
  base: string,
  report: IntegrityReport,
  state: StateName,
  offset: number,
  size: number,
  gid?: string,
): Promise<number> {
  const key = stateKey(base, state, gid);
  const isZset = (ZSET_STATES as readonly string[]).includes(state);
  const read = isZset
    ? await client.zrange(key, offset, offset + size - 1)
    : await client.lrange(key, offset, offset + size - 1);
  const ids = read.filter((id) => !isLegacyMarker(id));
  if (ids.length === 0) return read.length;
  const links = await linksOf(client, base, ids);
  const entries = isZset ? undefined : listEntries(read, ids, key, offset, gid);
  const items: ProbeItem[] = ids.map((id, i) => ({
    id,
    ...links[i]!,
    // A list entry only moves towards the tail while it waits (new entries are pushed at the
    // head), so the confirmation looks from the window's start to one window further.
    self: { state, gid, from: offset, to: offset + 2 * size + INTEGRITY_LIMITS.window },
  }));
  const first = await probe(client, base, items, false);
  const suspects = items
    .map((item, i) => ({ item, entry: entries?.[i] }))
    .filter(({ entry }, i) => judgeMember(state, first.facts[i]!, first, entry).length > 0);
  if (suspects.length > 0) {
    const confirmed = await probe(
      client,
      base,
      suspects.map(({ item }) => item),
      true,
    );
    suspects.forEach(({ item, entry }, i) => {
      const facts = confirmed.facts[i]!;
      if (!facts.inSelf) return;
      for (const invariant of judgeMember(state, facts, confirmed, entry)) {
        record(report, invariant, item.id);
      }
    });
  }
  return read.length;
}
