/**
 * Which SLOWLOG entries of backlog.test.ts count against the engine. SLOWLOG times a command by
 * the wall clock, so besides slow work it logs stalls: Redis descheduled on a machine whose
 * cores other processes keep busy, or growing one of its own hash tables. A stall shows as a
 * command whose cost cannot depend on the backlog's size (an HSET of one field, a DEL of a lock,
 * an XADD) taking milliseconds. Such a command over the bound is a stall, not engine work; a
 * script over the bound is charged the time it spent outside the stalled commands Redis logged
 * for it (a script's own commands are logged just before it, from its caller's address).
 * Everything else over the bound (LREM, LPOS, LRANGE, a script that is slow by itself) counts.
 */
import type { SlowEntry } from './backlog-slowlog';

/** Commands whose cost is the same however many jobs a queue holds (for the keys OxMQ uses). */
const CONSTANT_COST = new Set([
  'hset',
  'hmset',
  'hget',
  'hmget',
  'hdel',
  'hexists',
  'hincrby',
  'hstrlen',
  'set',
  'get',
  'del',
  'unlink',
  'exists',
  'incr',
  'pexpire',
  'pttl',
  'zadd',
  'zrem',
  'zscore',
  'zcard',
  'llen',
  'lpush',
  'rpush',
  'rpoplpush',
  'lmove',
  'rpop',
  'lpop',
  'xadd',
  'sadd',
  'srem',
  'scard',
]);

const isScript = (entry: SlowEntry) => entry.script !== undefined;

export interface Verdict {
  /** Entries over the bound that are the engine's own work. */
  over: SlowEntry[];
  /** Entries over the bound explained by a stall, with the time charged to the engine. */
  stalls: { entry: SlowEntry; charged: number }[];
}

/** Sorts one phase's entries over `bound` microseconds into engine work and stalls. */
export function judge(entries: readonly SlowEntry[], bound: number): Verdict {
  const byId = [...entries].sort((a, b) => a.id - b.id);
  const verdict: Verdict = { over: [], stalls: [] };
  for (const [index, entry] of byId.entries()) {
    if (entry.micros <= bound) continue;
    if (!isScript(entry)) {
      if (CONSTANT_COST.has(entry.command)) verdict.stalls.push({ entry, charged: 0 });
      else verdict.over.push(entry);
      continue;
    }
    // The script's own logged commands: the entries just before it, from the same client.
    let stalled = 0;
    for (let k = index - 1; k >= 0; k -= 1) {
      const inner = byId[k]!;
      if (inner.client !== entry.client || isScript(inner)) break;
      // The script's commands ran inside it: together they cannot outlast it.
      if (stalled + inner.micros > entry.micros) break;
      if (CONSTANT_COST.has(inner.command)) stalled += inner.micros;
    }
    const charged = entry.micros - stalled;
    if (stalled > 0 && charged <= bound) verdict.stalls.push({ entry, charged });
    else verdict.over.push(entry);
  }
  return verdict;
}
