/**
 * Pure helpers of the benchmark harness: medians, percentiles, the A B A B run order, INFO
 * parsing and the exact-delivery check. No I/O here, so test/engine/bench-harness.test.ts can
 * check them without Redis.
 */

export type Lib = 'oxmq' | 'bullmq';
export const LIBS: readonly Lib[] = ['oxmq', 'bullmq'];

/** Median of the finite numbers in `values` (mean of the middle two for an even count). */
export function median(values: readonly number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100) of `values`. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface RunSlot {
  /** 0 is the warm-up round, never part of a median. */
  round: number;
  lib: Lib;
  warmup: boolean;
}

/** One warm-up round, then `rounds` measured rounds; each round runs the libraries in turn. */
export function alternationOrder(rounds: number, libs: readonly Lib[] = LIBS): RunSlot[] {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('rounds must be an integer >= 1');
  const order: RunSlot[] = [];
  for (let round = 0; round <= rounds; round++) {
    for (const lib of libs) order.push({ round, lib, warmup: round === 0 });
  }
  return order;
}

/** `INFO` text as a field -> value map (sections and comments dropped). */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

export interface RedisCounters {
  /** used_cpu_sys + used_cpu_user, in microseconds. */
  cpuUs: number;
  /** Sum of `calls` over every command of INFO commandstats (commands run by Lua included). */
  calls: number;
  /** Calls per command name. */
  byCommand: Record<string, number>;
}

/** Counters from the text of `INFO cpu` + `INFO commandstats` (one or two replies joined). */
export function redisCounters(infoText: string): RedisCounters {
  const fields = parseInfo(infoText);
  const cpu =
    parseFloat(fields.get('used_cpu_sys') ?? '0') + parseFloat(fields.get('used_cpu_user') ?? '0');
  let calls = 0;
  const byCommand: Record<string, number> = {};
  for (const [key, value] of fields) {
    if (!key.startsWith('cmdstat_')) continue;
    const match = /(?:^|,)calls=(\d+)/.exec(value);
    if (!match) continue;
    const n = parseInt(match[1]!, 10);
    byCommand[key.slice('cmdstat_'.length)] = n;
    calls += n;
  }
  return { cpuUs: Math.round(cpu * 1e6), calls, byCommand };
}

export function counterDelta(before: RedisCounters, after: RedisCounters): RedisCounters {
  const byCommand: Record<string, number> = {};
  for (const [command, n] of Object.entries(after.byCommand)) {
    const delta = n - (before.byCommand[command] ?? 0);
    if (delta > 0) byCommand[command] = delta;
  }
  return { cpuUs: after.cpuUs - before.cpuUs, calls: after.calls - before.calls, byCommand };
}

/** The `top` commands by calls, as "name=calls/job" (jobs > 0) or "name=calls". */
export function topCommands(counters: RedisCounters, jobs: number, top = 8): string {
  return Object.entries(counters.byCommand)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, n]) => `${name}=${jobs > 0 ? Math.round((n / jobs) * 10) / 10 : n}`)
    .join(' ');
}

export interface DeliveryInput {
  /** Ids returned by add/addBulk. */
  added: readonly string[];
  /** One entry per processor call (a duplicate delivery appears twice). Null: no worker ran. */
  processed: readonly string[] | null;
  /** Ids of the job hashes found in Redis after the scenario. */
  jobHashes: readonly string[];
  /** Whether completed jobs must still have their hash (false with removeOnComplete: true). */
  keepCompleted: boolean;
  /** Final counts read from Redis, e.g. { wait, active, completed, failed, delayed }. */
  counts: Readonly<Record<string, number>>;
  /** What the final counts must be. */
  expectedCounts: Readonly<Record<string, number>>;
  /** Lock keys left behind. */
  leftoverLocks?: number;
}

/** Every problem found; an empty list means exact delivery. */
export function checkDelivery(input: DeliveryInput): string[] {
  const problems: string[] = [];
  const added = new Set(input.added);
  if (added.size !== input.added.length) {
    problems.push(`${input.added.length - added.size} duplicate id(s) returned by add`);
  }
  if (input.processed) {
    const seen = new Map<string, number>();
    for (const id of input.processed) seen.set(id, (seen.get(id) ?? 0) + 1);
    const duplicates = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
    const missing = [...added].filter((id) => !seen.has(id));
    const unknown = [...seen.keys()].filter((id) => !added.has(id));
    if (duplicates.length) problems.push(`processed more than once: ${sample(duplicates)}`);
    if (missing.length) problems.push(`never processed: ${sample(missing)}`);
    if (unknown.length) problems.push(`processed but never added: ${sample(unknown)}`);
  }
  const hashes = new Set(input.jobHashes);
  const mustHaveHash = input.processed === null || input.keepCompleted;
  const orphans = [...hashes].filter((id) => !mustHaveHash || !added.has(id));
  if (orphans.length) problems.push(`orphan job hashes: ${sample(orphans)}`);
  if (mustHaveHash) {
    const lost = [...added].filter((id) => !hashes.has(id));
    if (lost.length) problems.push(`job hashes missing: ${sample(lost)}`);
  }
  for (const [state, expected] of Object.entries(input.expectedCounts)) {
    const actual = input.counts[state] ?? 0;
    if (actual !== expected) problems.push(`${state} count ${actual}, expected ${expected}`);
  }
  if (input.leftoverLocks) problems.push(`${input.leftoverLocks} lock key(s) left behind`);
  return problems;
}

function sample(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(', ');
  return ids.length > 5 ? `${shown} ... (${ids.length})` : `${shown} (${ids.length})`;
}

/** Value of `a / b` rounded to 2 decimals, or null when either side is missing. */
export function ratio(a: number | null, b: number | null): number | null {
  if (a === null || b === null || b === 0) return null;
  return Math.round((a / b) * 100) / 100;
}
