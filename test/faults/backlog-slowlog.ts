/**
 * SLOWLOG bookkeeping for the large-backlog scenario (backlog.test.ts, docs/reliability.md,
 * Large backlogs): each phase resets the slow log, runs, and reads back what Redis logged,
 * with every EVALSHA / EVAL named by the engine script whose SHA1 it carries.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { SCRIPTS } from 'oxmq/internals';

/** One SLOWLOG entry: what ran and for how long inside Redis. */
export interface SlowEntry {
  /** SLOWLOG's entry id: increasing, and a script's own commands are logged just before it. */
  id: number;
  micros: number;
  command: string;
  /** The engine script an EVALSHA / EVAL ran, when it is one of them. */
  script?: string;
  /** The first arguments after the command (and after the SHA), cut short. */
  args: string[];
  /** The calling client's address: a script's own commands carry its caller's. */
  client: string;
}

export interface PhaseResult {
  phase: string;
  ms: number;
  entries: SlowEntry[];
  /** The slowest entry's time, 0 when nothing was logged. */
  maxMicros: number;
  /** How long Redis waited for a CPU while ready to run, during the phase (0 when unknown). */
  waitedMicros: number;
}

/**
 * The time a process has spent ready to run but waiting for a CPU, in microseconds: the second
 * field of /proc/<pid>/schedstat (nanoseconds). Undefined where the kernel does not offer it.
 */
function cpuWaitMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
    const nanos = Number(fields[1]);
    return Number.isFinite(nanos) ? nanos / 1000 : undefined;
  } catch {
    return undefined;
  }
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** SHA1 → script name, for every script of the registry (engine/scripts/registry.generated.ts). */
export const SCRIPT_BY_SHA: ReadonlyMap<string, string> = new Map(
  Object.values(SCRIPTS).map((script) => [sha1(script.lua), script.name]),
);

/**
 * The script an EVAL carried. SLOWLOG keeps only the first 128 characters of an argument, so
 * the script is known by the start of its source (each script opens with its own header).
 */
function scriptOfSource(logged: string): string {
  const cut = /^([\s\S]*?)\.\.\. \(\d+ more bytes\)$/.exec(logged);
  const start = cut ? cut[1]! : logged;
  const matches = Object.values(SCRIPTS).filter((script) => script.lua.startsWith(start));
  return matches.length === 1 ? `${matches[0]!.name} (EVAL)` : 'ad-hoc script';
}

function toEntry(raw: unknown): SlowEntry {
  // [id, unix time, microseconds, [command, ...args], client address, client name]
  const [id, , micros, argv, client] = raw as [number, number, number, string[], string];
  const command = String(argv[0] ?? '').toLowerCase();
  let rest = argv.slice(1).map(String);
  let script: string | undefined;
  if (command === 'evalsha' || command === 'evalsha_ro') {
    script = SCRIPT_BY_SHA.get(String(rest[0])) ?? `unknown sha ${rest[0]}`;
    rest = rest.slice(2);
  } else if (command === 'eval' || command === 'eval_ro') {
    script = scriptOfSource(String(rest[0]));
    rest = rest.slice(2);
  }
  return {
    id: Number(id),
    client: String(client),
    micros: Number(micros),
    command,
    ...(script ? { script } : {}),
    args: rest.slice(0, 3).map((arg) => (arg.length > 60 ? `${arg.slice(0, 60)}…` : arg)),
  };
}

/**
 * Runs `body` between a SLOWLOG RESET and a SLOWLOG GET of everything logged meanwhile, and
 * reads how long the redis-server process `pid` waited for a CPU over the same span.
 */
export async function measurePhase(
  redis: Redis,
  phase: string,
  body: () => Promise<unknown>,
  pid?: number,
): Promise<PhaseResult> {
  await redis.call('SLOWLOG', 'RESET');
  const waitedBefore = cpuWaitMicros(pid);
  const started = Date.now();
  await body();
  const ms = Date.now() - started;
  const waitedAfter = cpuWaitMicros(pid);
  const raw = (await redis.call('SLOWLOG', 'GET', '-1')) as unknown[];
  const entries = raw
    .map(toEntry)
    // The harness's own SLOWLOG calls are not the phase's.
    .filter((entry) => entry.command !== 'slowlog')
    .sort((a, b) => b.micros - a.micros);
  const waitedMicros =
    waitedBefore === undefined || waitedAfter === undefined
      ? 0
      : Math.round(waitedAfter - waitedBefore);
  return { phase, ms, entries, maxMicros: entries[0]?.micros ?? 0, waitedMicros };
}

/** One line per phase, with its slowest entries, for the test's output. */
export function describePhase(result: PhaseResult, over: number): string {
  const slow = result.entries.filter((entry) => entry.micros > over);
  const top = result.entries[0];
  const head =
    `${result.phase}: ${result.ms} ms, ${result.entries.length} logged, ` +
    `Redis waited ${(result.waitedMicros / 1000).toFixed(1)} ms for a CPU, slowest ` +
    (top ? `${(top.micros / 1000).toFixed(2)} ms (${top.script ?? top.command})` : 'none');
  const lines = slow
    .slice(0, 10)
    .map(
      (entry) =>
        `    ${(entry.micros / 1000).toFixed(2)} ms ${entry.command}` +
        `${entry.script ? ` ${entry.script}` : ''} ${entry.args.join(' ')}`,
    );
  return [head, ...lines].join('\n');
}
