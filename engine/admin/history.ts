/**
 * The console's view of the history the workers and the backlog sampler keep (docs/metrics.md,
 * "Timing history"): for one queue or summed over several, evenly spaced points of a range with
 * outcomes, wait and run percentiles and the backlog, and the job names of the range.
 */
import type { RedisClient } from '../backend/redis/connection';
import {
  HISTORY_RANGES,
  historyWindow,
  HistoryTotals,
  readRawHistory,
  summarise,
  type HistoryRange,
  type RawHistory,
  type TimingSummary,
} from './redis/history-reader';
import { QueueKeys } from '../queue/keys';
import type { QueueRef } from './queue-ref';

export { HISTORY_RANGES, type HistoryRange, type TimingSummary };

export interface HistoryPoint {
  /** Start of the point (ms epoch); it covers `stepMs`. */
  at: number;
  completed: number;
  failed: number;
  /** Failed attempts that were retried. */
  retried: number;
  /** Wait of first attempts (due → start) started in the point; null when none. */
  wait: TimingSummary | null;
  /** Run time of attempts that ended in the point; null when none. */
  run: TimingSummary | null;
  /** Jobs per state at the point's last backlog sample; null when none was taken. */
  backlog: Record<string, number> | null;
}

export interface HistoryNameSummary {
  name: string;
  completed: number;
  failed: number;
  retried: number;
  wait: TimingSummary | null;
  run: TimingSummary | null;
}

export interface QueueHistory {
  range: HistoryRange;
  from: number;
  to: number;
  stepMs: number;
  points: HistoryPoint[];
  /** The whole range at once: outcomes, wait and run percentiles. */
  total: Omit<HistoryNameSummary, 'name'>;
  /** Job names over the range, busiest first. */
  names: HistoryNameSummary[];
  /** Whether any worker or sampler wrote anything in the range. */
  hasData: boolean;
}

export interface HistoryOptions {
  range: HistoryRange;
  /** Outcomes and timings of this job name only. */
  name?: string;
  now?: number;
}

function pointOf(at: number, totals: HistoryTotals): HistoryPoint {
  return {
    at,
    completed: totals.completed,
    failed: totals.failed,
    retried: totals.retried,
    wait: summarise(totals.wait, totals.waitSum),
    run: summarise(totals.run, totals.runSum),
    backlog: totals.backlogSlot >= 0 ? totals.backlog : null,
  };
}

function viewOf(raw: RawHistory): QueueHistory {
  const points = raw.points.map((totals, i) => pointOf(raw.from + i * raw.stepMs, totals));
  const names = [...raw.names]
    .map(([name, totals]) => {
      const { completed, failed, retried, wait, run } = pointOf(0, totals);
      return { name, completed, failed, retried, wait, run };
    })
    .sort((a, b) => b.completed + b.failed + b.retried - (a.completed + a.failed + a.retried));
  const sum = new HistoryTotals();
  for (const totals of raw.points) sum.merge(totals);
  const { completed, failed, retried, wait, run } = pointOf(0, sum);
  const hasData = raw.points.some(
    (p) => p.completed + p.failed + p.retried > 0 || p.wait.size > 0 || p.backlogSlot >= 0,
  );
  return {
    range: raw.range,
    from: raw.from,
    to: raw.from + raw.points.length * raw.stepMs,
    stepMs: raw.stepMs,
    points,
    total: { completed, failed, retried, wait, run },
    names,
    hasData,
  };
}

export async function getQueueHistory(
  client: RedisClient,
  queue: QueueRef,
  options: HistoryOptions,
): Promise<QueueHistory> {
  const keys = new QueueKeys(queue.prefix, queue.name);
  return viewOf(await readRawHistory(client, keys, options.range, options));
}

/** The history of several queues summed point by point (their names merged too). */
export async function getHistoryAcrossQueues(
  client: RedisClient,
  queues: readonly QueueRef[],
  options: HistoryOptions,
): Promise<QueueHistory> {
  const now = options.now ?? Date.now();
  const raws = await Promise.all(
    queues.map((queue) =>
      readRawHistory(client, new QueueKeys(queue.prefix, queue.name), options.range, {
        ...options,
        now,
      }),
    ),
  );
  const [first, ...rest] = raws;
  if (!first) return viewOf(emptyHistory(options.range, now));
  for (const raw of rest) {
    raw.points.forEach((totals, i) => first.points[i]!.merge(totals));
    for (const [name, totals] of raw.names) {
      const into = first.names.get(name);
      if (into) into.merge(totals);
      else first.names.set(name, totals);
    }
  }
  return viewOf(first);
}

function emptyHistory(range: HistoryRange, now: number): RawHistory {
  const window = historyWindow(range, now);
  return {
    range,
    from: window.from,
    stepMs: window.stepMs,
    points: Array.from({ length: window.count }, () => new HistoryTotals()),
    names: new Map(),
  };
}
