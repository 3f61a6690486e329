/**
 * Reads a queue's history back (docs/metrics.md, "Timing history"): the hashes covering a range,
 * folded into evenly spaced points (a point sums the minutes or hours inside it, and takes the
 * last backlog sample), each with its outcomes, wait and run percentiles, and backlog; and the
 * job names seen over the range with their totals.
 */
import type { RedisClient } from '../../backend/redis/connection';
import type { QueueKeys } from '../../queue/keys';
import { addCounts, quantileOf, totalOf, type BucketCounts } from '../../history/buckets';
import {
  DAY_MS,
  HOUR_MS,
  MINUTE_MS,
  hashStart,
  historyKey,
  parseHistoryField,
  SERIES,
  slotMs,
  slotStart,
  type Resolution,
} from '../../history/history-keys';

/** The ranges a reader may ask for: how far back, at which resolution, in which steps. */
export const HISTORY_RANGES = {
  '1h': { spanMs: HOUR_MS, resolution: 'minute', stepMs: MINUTE_MS },
  '6h': { spanMs: 6 * HOUR_MS, resolution: 'minute', stepMs: 5 * MINUTE_MS },
  '24h': { spanMs: DAY_MS, resolution: 'minute', stepMs: 15 * MINUTE_MS },
  '7d': { spanMs: 7 * DAY_MS, resolution: 'hour', stepMs: HOUR_MS },
  '30d': { spanMs: 30 * DAY_MS, resolution: 'hour', stepMs: 4 * HOUR_MS },
} as const satisfies Record<string, { spanMs: number; resolution: Resolution; stepMs: number }>;

export type HistoryRange = keyof typeof HISTORY_RANGES;

export interface TimingSummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

/** Counts of one point (or one name over the range), before they are summarised. */
export class HistoryTotals {
  completed = 0;
  failed = 0;
  retried = 0;
  waitSum = 0;
  runSum = 0;
  readonly wait: BucketCounts = new Map();
  readonly run: BucketCounts = new Map();
  /** The last backlog sample inside the point: its slot and count per state. */
  backlogSlot = -1;
  backlog: Record<string, number> = {};

  add(series: string, value: number): void {
    if (series === SERIES.completed) this.completed += value;
    else if (series === SERIES.failed) this.failed += value;
    else if (series === SERIES.retried) this.retried += value;
    else if (series === SERIES.waitSum) this.waitSum += value;
    else if (series === SERIES.runSum) this.runSum += value;
    else if (series.startsWith(SERIES.waitBucket)) bump(this.wait, series.slice(1), value);
    else if (series.startsWith(SERIES.runBucket)) bump(this.run, series.slice(1), value);
  }

  sample(slot: number, state: string, count: number): void {
    if (slot > this.backlogSlot) {
      this.backlogSlot = slot;
      this.backlog = {};
    }
    if (slot === this.backlogSlot) this.backlog[state] = count;
  }

  merge(other: HistoryTotals): void {
    this.completed += other.completed;
    this.failed += other.failed;
    this.retried += other.retried;
    this.waitSum += other.waitSum;
    this.runSum += other.runSum;
    addCounts(this.wait, other.wait);
    addCounts(this.run, other.run);
    // Queues sampled in the same minute add up; a queue with an older last sample does not.
    if (other.backlogSlot > this.backlogSlot) {
      this.backlogSlot = other.backlogSlot;
      this.backlog = { ...other.backlog };
    } else if (other.backlogSlot === this.backlogSlot && other.backlogSlot >= 0) {
      for (const [state, count] of Object.entries(other.backlog)) {
        this.backlog[state] = (this.backlog[state] ?? 0) + count;
      }
    }
  }
}

function bump(counts: BucketCounts, bucket: string, value: number): void {
  const index = Number(bucket);
  if (Number.isInteger(index)) counts.set(index, (counts.get(index) ?? 0) + value);
}

export function summarise(counts: BucketCounts, sum: number): TimingSummary | null {
  const count = totalOf(counts);
  if (count === 0) return null;
  return {
    count,
    meanMs: sum / count,
    p50Ms: quantileOf(counts, 0.5)!,
    p95Ms: quantileOf(counts, 0.95)!,
    p99Ms: quantileOf(counts, 0.99)!,
  };
}

/** The raw totals of one queue over a range: per point, per name. */
export interface RawHistory {
  range: HistoryRange;
  from: number;
  stepMs: number;
  points: HistoryTotals[];
  names: Map<string, HistoryTotals>;
}

/** The points of a range ending now: `from` aligned to the step, the current slot included. */
export function historyWindow(range: HistoryRange, now: number) {
  const { spanMs, stepMs, resolution } = HISTORY_RANGES[range];
  const end = slotStart(resolution, now) + slotMs(resolution);
  const to = Math.ceil(end / stepMs) * stepMs;
  return { from: to - spanMs, to, stepMs, resolution, count: spanMs / stepMs };
}

/**
 * One queue's totals over `range`. `name` narrows the outcomes and timings to one job name
 * (backlog samples stay the queue's).
 */
export async function readRawHistory(
  client: RedisClient,
  keys: QueueKeys,
  range: HistoryRange,
  options: { name?: string; now?: number } = {},
): Promise<RawHistory> {
  const window = historyWindow(range, options.now ?? Date.now());
  const { resolution, from, to, stepMs } = window;
  const spanOfHash = resolution === 'minute' ? HOUR_MS : DAY_MS;
  const hashes: string[] = [];
  for (let at = hashStart(resolution, from); at < to; at += spanOfHash) {
    hashes.push(historyKey(keys, resolution, at));
  }
  // One slot (the queue's), so one pipeline even on a Redis Cluster.
  const pipeline = client.pipeline();
  for (const key of hashes) pipeline.hgetall(key);
  const replies = (await pipeline.exec()) ?? [];

  const points = Array.from({ length: window.count }, () => new HistoryTotals());
  const names = new Map<string, HistoryTotals>();
  const wanted = options.name ?? '';
  for (const [error, reply] of replies) {
    if (error) throw error;
    for (const [field, text] of Object.entries(reply as Record<string, string>)) {
      const parsed = parseHistoryField(field);
      if (!parsed || parsed.slot < from || parsed.slot >= to) continue;
      const point = points[Math.floor((parsed.slot - from) / stepMs)]!;
      const value = Number(text);
      if (parsed.series === SERIES.backlog) {
        point.sample(parsed.slot, parsed.name, value);
        continue;
      }
      if (parsed.name === wanted) point.add(parsed.series, value);
      if (parsed.name !== '') {
        let totals = names.get(parsed.name);
        if (!totals) {
          totals = new HistoryTotals();
          names.set(parsed.name, totals);
        }
        totals.add(parsed.series, value);
      }
    }
  }
  return { range, from, stepMs, points, names };
}
