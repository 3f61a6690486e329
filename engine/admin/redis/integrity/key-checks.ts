/**
 * Checks of single keys the key scan meets (docs/integrity.md): a job lock without a TTL, a
 * tenant group's active set holding ids that left `active`, and the `marker` sorted set.
 */
import type { Redis } from 'ioredis';
import { readAtomically, type ReadCommand } from '../../../backend/redis/atomic-reads';
import { record, type IntegrityReport } from './invariants';
import { INTEGRITY_LIMITS } from './limits';

/**
 * Every lock is set with an expiry (PX), so a worker that dies lets its job stall. A lock with
 * none (PTTL -1, e.g. after a PERSIST) holds its job for good: the stalled check never takes an
 * active job back, and nothing removes a locked job. PTTL -1 is never a passing state, so the
 * one read needs no confirmation.
 */
export async function checkLockTtls(
  client: Redis,
  base: string,
  report: IntegrityReport,
  ids: readonly string[],
): Promise<void> {
  const replies =
    (await client.pipeline(ids.map((id) => ['pttl', `${base}${id}:lock`])).exec()) ?? [];
  ids.forEach((id, i) => {
    const [error, ttl] = replies[i] ?? [null, null];
    if (!error && Number(ttl) === -1) record(report, 'lock-without-ttl', id);
  });
}

type Lookup = { lock: number; head: number; tail: number; length: number };

/** Queues the reads that tell whether `id` is still active: its lock, LPOS from both ends, LLEN. */
function activeLookups(base: string, id: string, commands: ReadCommand[]): Lookup {
  const at = (command: ReadCommand) => commands.push(command) - 1;
  const bound = INTEGRITY_LIMITS.listLookup;
  const active = `${base}active`;
  return {
    lock: at(['exists', `${base}${id}:lock`]),
    head: at(['lpos', active, id, 'MAXLEN', bound]),
    tail: at(['lpos', active, id, 'RANK', -1, 'MAXLEN', bound]),
    length: at(['llen', active]),
  };
}

/** Unlocked and surely not in `active` (false when `active` is too long to tell). */
function isStray(replies: [Error | null, unknown][], lookup: Lookup): boolean {
  const value = (index: number) => {
    const [error, reply] = replies[index] ?? [null, null];
    return error ? null : reply;
  };
  return (
    Number(value(lookup.lock)) === 0 &&
    value(lookup.head) === null &&
    value(lookup.tail) === null &&
    Number(value(lookup.length)) <= 2 * INTEGRITY_LIMITS.listLookup
  );
}

/**
 * Ids of `group:<gid>:active` that have no lock and are not in `active` (sample
 * `<gid> -> <id>`): every OxMQ script that moves a grouped job out of `active` removes it from
 * the set in the same step, so such an id was moved by a script that knows no groups (a bullmq
 * worker's stalled check). The fetch prunes these ids once the group looks full, by the same
 * rule, so until then they only show in counts. Confirmed in one atomic read each batch; an id
 * `active` is too long to rule out is left alone. Returns the members examined.
 */
export async function checkGroupActive(
  client: Redis,
  base: string,
  report: IntegrityReport,
  gid: string,
): Promise<number> {
  const key = `${base}group:${gid}:active`;
  let cursor = '0';
  let examined = 0;
  do {
    const [next, ids] = await client.sscan(key, cursor, 'COUNT', INTEGRITY_LIMITS.window);
    cursor = next;
    examined += ids.length;
    if (ids.length === 0) continue;
    const firstReads: ReadCommand[] = [];
    const firstLookups = ids.map((id) => activeLookups(base, id, firstReads));
    const first = (await client.pipeline(firstReads).exec()) ?? [];
    const suspects = ids.filter((_, i) => isStray(first, firstLookups[i]!));
    if (suspects.length === 0) continue;
    const reads: ReadCommand[] = [];
    const checks = suspects.map((id) => ({
      member: reads.push(['sismember', key, id]) - 1,
      lookup: activeLookups(base, id, reads),
    }));
    const confirmed = await readAtomically(client, base, reads);
    suspects.forEach((id, i) => {
      const { member, lookup } = checks[i]!;
      const [, isMember] = confirmed[member] ?? [null, 0];
      if (Number(isMember) === 1 && isStray(confirmed, lookup)) {
        record(report, 'group-active-stray', `${gid} -> ${id}`);
      }
    });
  } while (cursor !== '0');
  return examined;
}

/**
 * `marker` is a sorted set with at most the members bullmq 6 and OxMQ write: `0` (score 0, jobs
 * are ready) and `1` (score: when the next delayed job or a rate-limited group is due). Workers
 * block on it with BZPOPMIN, so another member would wake them with a value they cannot read,
 * and another type breaks every fetch (WRONGTYPE). The sample is `marker`, or the member.
 */
export async function checkMarker(
  client: Redis,
  base: string,
  report: IntegrityReport,
): Promise<void> {
  const key = `${base}marker`;
  const type = await client.type(key);
  if (type === 'none') return;
  if (type !== 'zset') {
    record(report, 'marker-invalid', 'marker');
    return;
  }
  // More than two members is broken already: read a few to name one.
  const entries = await client.zrange(key, 0, 9, 'WITHSCORES');
  for (let i = 0; i + 1 < entries.length; i += 2) {
    const member = entries[i]!;
    const score = Number(entries[i + 1]);
    if (member === '1' || (member === '0' && score === 0)) continue;
    record(report, 'marker-invalid', member);
    return;
  }
}
