/**
 * Where the history of a queue lives (docs/redis-keys.md, "History"): two kinds of hash under
 * the queue's base key, in an `oxmq:` namespace bullmq never reads, writes or deletes, so they
 * share the queue's hash slot on a Redis Cluster.
 *
 * - `Q oxmq:history:m:<hour start ms>`: one hour of minutes, kept `minutesKeptMs` past its hour;
 * - `Q oxmq:history:h:<day start ms>`: one UTC day of hours, kept `hoursKeptMs` past its day.
 *
 * A field is `<slot start ms>|<series>|<name>`: the minute (or hour) it counts, what it counts,
 * and the job name it counts ('' for the whole queue; for backlog samples, the state).
 */
import type { QueueKeys } from '../queue/keys';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** What a field counts. `w<i>` / `x<i>`: wait / run durations in bucket i (buckets.ts). */
export const SERIES = {
  completed: 'c',
  /** Attempts that failed for good. */
  failed: 'f',
  /** Attempts that failed and will be retried. */
  retried: 'r',
  waitSum: 'ws',
  runSum: 'xs',
  waitBucket: 'w',
  runBucket: 'x',
  /** A backlog sample: the name part is the state, the value its count at the sample. */
  backlog: 'b',
} as const;

export interface HistoryRetention {
  /** How long minute-resolution data is kept after its hour (default one day). */
  minutesKeptMs: number;
  /** How long hour-resolution data is kept after its day (default 30 days). */
  hoursKeptMs: number;
}

export const DEFAULT_HISTORY_RETENTION: HistoryRetention = {
  minutesKeptMs: DAY_MS,
  hoursKeptMs: 30 * DAY_MS,
};

export type Resolution = 'minute' | 'hour';

const RESOLUTION = {
  minute: { slotMs: MINUTE_MS, keyMs: HOUR_MS, tag: 'm' },
  hour: { slotMs: HOUR_MS, keyMs: DAY_MS, tag: 'h' },
} as const;

export function slotMs(resolution: Resolution): number {
  return RESOLUTION[resolution].slotMs;
}

/** The start of the slot (minute or hour) holding `at`. */
export function slotStart(resolution: Resolution, at: number): number {
  const size = RESOLUTION[resolution].slotMs;
  return Math.floor(at / size) * size;
}

/** The start of the span one hash holds (an hour of minutes, a day of hours) around `at`. */
export function hashStart(resolution: Resolution, at: number): number {
  const size = RESOLUTION[resolution].keyMs;
  return Math.floor(at / size) * size;
}

/** The hash holding the slots of `resolution` around `at`. */
export function historyKey(keys: QueueKeys, resolution: Resolution, at: number): string {
  return `${keys.base}oxmq:history:${RESOLUTION[resolution].tag}:${hashStart(resolution, at)}`;
}

/** When the hash around `at` expires (ms epoch): the end of its span plus the retention. */
export function historyExpiresAt(
  resolution: Resolution,
  at: number,
  retention: HistoryRetention,
): number {
  const kept = resolution === 'minute' ? retention.minutesKeptMs : retention.hoursKeptMs;
  return hashStart(resolution, at) + RESOLUTION[resolution].keyMs + kept;
}

/** Zset of the queue's history hashes, scored by when each expires (obliterate reads it). */
export function historyIndexKey(keys: QueueKeys): string {
  return `${keys.base}oxmq:history`;
}

export function historyField(slot: number, series: string, name: string): string {
  return `${slot}|${series}|${name}`;
}

/** Splits a field; a name may hold `|` itself (only the first two separate). */
export function parseHistoryField(
  field: string,
): { slot: number; series: string; name: string } | undefined {
  const first = field.indexOf('|');
  const second = field.indexOf('|', first + 1);
  if (first < 0 || second < 0) return undefined;
  const slot = Number(field.slice(0, first));
  if (!Number.isFinite(slot)) return undefined;
  return { slot, series: field.slice(first + 1, second), name: field.slice(second + 1) };
}
