/**
 * Which SLOWLOG entries of backlog.test.ts count against the engine. SLOWLOG times a command by
 * the wall clock, so besides slow work it logs stalls: Redis descheduled on a machine whose
 * cores other processes keep busy (or throttled by the kernel for using most of a second under
 * a real-time policy), or growing one of its own hash tables. Two kinds of evidence set a stall
 * apart from engine work:
 *
 * - A command whose cost cannot depend on the backlog's size (an HSET of one field, a DEL of a
 *   lock, an XADD) taking milliseconds is a stall; a script is charged the time it spent outside
 *   the stalled commands Redis logged for it (a script's own commands are logged just before it,
 *   from its caller's address or, on Redis 7.0, from the script client's `?:0`).
 * - The kernel counts how long the Redis process waited for a CPU while it was ready to run
 *   (/proc/<pid>/schedstat). A command cannot have worked for more than its logged time minus
 *   that wait: when everything over the bound in a phase, taken together, is over it by no more
 *   than Redis waited for a CPU during the phase, the wait explains it.
 *
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

/** The command a script ran, logged just before the script by its caller or the script client. */
const ranInside = (inner: SlowEntry, script: SlowEntry) =>
  !isScript(inner) && (inner.client === script.client || inner.client === '?:0');

export interface Verdict {
  /** Entries over the bound that are the engine's own work. */
  over: SlowEntry[];
  /** Entries over the bound explained by a stall, with the time charged to the engine. */
  stalls: { entry: SlowEntry; charged: number }[];
}

/**
 * Sorts one phase's entries over `bound` microseconds into engine work and stalls.
 * `waitedMicros`: how long Redis waited for a CPU during the phase (0 when unknown).
 */
export function judge(entries: readonly SlowEntry[], bound: number, waitedMicros = 0): Verdict {
  const byId = [...entries].sort((a, b) => a.id - b.id);
  const inner = new Set<SlowEntry>();
  const charged: { entry: SlowEntry; charged: number }[] = [];
  for (let index = byId.length - 1; index >= 0; index -= 1) {
    const entry = byId[index]!;
    if (inner.has(entry)) continue;
    if (!isScript(entry)) {
      charged.push({ entry, charged: CONSTANT_COST.has(entry.command) ? 0 : entry.micros });
      continue;
    }
    let stalled = 0;
    let inside = 0;
    for (let k = index - 1; k >= 0; k -= 1) {
      const command = byId[k]!;
      // The script's commands ran inside it: together they cannot outlast it.
      if (!ranInside(command, entry) || inside + command.micros > entry.micros) break;
      inner.add(command);
      inside += command.micros;
      if (CONSTANT_COST.has(command.command)) stalled += command.micros;
    }
    charged.push({ entry, charged: entry.micros - stalled });
  }
  const verdict: Verdict = { over: [], stalls: [] };
  const overBound = charged.filter((c) => c.entry.micros > bound);
  const excess = overBound.reduce((sum, c) => sum + Math.max(0, c.charged - bound), 0);
  const waitExplains = excess <= waitedMicros;
  for (const c of overBound) {
    if (c.charged <= bound || waitExplains) verdict.stalls.push(c);
    else verdict.over.push(c.entry);
  }
  return verdict;
}
