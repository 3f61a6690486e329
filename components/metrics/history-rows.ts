/**
 * The history's points (engine/admin/history.ts, through GET …/history) as rows for recharts,
 * and the numbers each chart's text summary gives. Pure functions: the chart components only
 * draw what these return.
 *
 * The last point of every range is the one under way (its minute or hours are not over): its
 * counts only grow until it ends, so drawn as the end of a line it is a drop that reads like an
 * outage. Count lines end at the point before it, and it is drawn apart, as a hollow dot.
 */
import type {
  HistoryPoint,
  HistorySparklinesResponse,
  QueueHistory,
  TimingSummary,
} from '@/lib/api-types';

export type Outcome = 'completed' | 'failed' | 'retried';

export interface ThroughputRow {
  at: number;
  completed?: number;
  failed?: number;
  retried?: number;
  /** The point under way, under keys of its own. */
  openCompleted?: number;
  openFailed?: number;
  openRetried?: number;
}

export const OPEN_KEY: Record<Outcome, 'openCompleted' | 'openFailed' | 'openRetried'> = {
  completed: 'openCompleted',
  failed: 'openFailed',
  retried: 'openRetried',
};

export function throughputRows(points: readonly HistoryPoint[]): ThroughputRow[] {
  return points.map((point, index) => {
    if (index < points.length - 1) {
      return {
        at: point.at,
        completed: point.completed,
        failed: point.failed,
        retried: point.retried,
      };
    }
    return {
      at: point.at,
      openCompleted: point.completed,
      openFailed: point.failed,
      openRetried: point.retried,
    };
  });
}

export interface RateRow {
  at: number;
  /** Failed for good, of the jobs that finished (completed + failed), in %. */
  failedPct: number | null;
  /** Failed attempts (failed + retried), of all attempts that ended, in %. */
  attemptsFailedPct: number | null;
}

export function failureRateRows(points: readonly HistoryPoint[]): RateRow[] {
  return points.map((point) => {
    const finished = point.completed + point.failed;
    const attempts = finished + point.retried;
    return {
      at: point.at,
      failedPct: finished > 0 ? (100 * point.failed) / finished : null,
      attemptsFailedPct: attempts > 0 ? (100 * (point.failed + point.retried)) / attempts : null,
    };
  });
}

export interface FailureRate {
  finished: number;
  failed: number;
  attempts: number;
  attemptsFailed: number;
}

export function failureRateOf(total: QueueHistory['total']): FailureRate {
  const finished = total.completed + total.failed;
  return {
    finished,
    failed: total.failed,
    attempts: finished + total.retried,
    attemptsFailed: total.failed + total.retried,
  };
}

export interface TimingRow {
  at: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export function timingRows(points: readonly HistoryPoint[], kind: 'wait' | 'run'): TimingRow[] {
  return points.map((point) => {
    const timing: TimingSummary | null = point[kind];
    return {
      at: point.at,
      p50: timing?.p50Ms ?? null,
      p95: timing?.p95Ms ?? null,
      p99: timing?.p99Ms ?? null,
    };
  });
}

/** The states a backlog chart stacks: jobs still to run or running. */
export const BACKLOG_STATES = [
  'waiting',
  'prioritized',
  'waiting-children',
  'delayed',
  'active',
] as const;
export type BacklogState = (typeof BACKLOG_STATES)[number];

export const BACKLOG_LABELS: Record<BacklogState, string> = {
  waiting: 'Waiting',
  prioritized: 'Prioritized',
  'waiting-children': 'Waiting for children',
  delayed: 'Delayed',
  active: 'Active',
};

export type BacklogRow = { at: number } & Partial<Record<BacklogState, number>>;

/** A point without a sample has no value, so the areas break there rather than drop to 0. */
export function backlogRows(points: readonly HistoryPoint[]): BacklogRow[] {
  return points.map((point) => {
    const row: BacklogRow = { at: point.at };
    if (point.backlog) {
      for (const state of BACKLOG_STATES) row[state] = point.backlog[state] ?? 0;
    }
    return row;
  });
}

/** The newest point with a backlog sample. */
export function latestBacklog(
  points: readonly HistoryPoint[],
): { at: number; backlog: Record<string, number> } | undefined {
  for (let i = points.length - 1; i >= 0; i--) {
    const point = points[i]!;
    if (point.backlog) return { at: point.at, backlog: point.backlog };
  }
  return undefined;
}

/** Whether any worker recorded an outcome or a timing in the range. */
export function hasOutcomes(history: Pick<QueueHistory, 'total'>): boolean {
  const { completed, failed, retried, wait, run } = history.total;
  return completed + failed + retried > 0 || wait !== null || run !== null;
}

export function largest(rows: readonly object[], keys: readonly string[]): number {
  let max = 0;
  for (const row of rows) {
    for (const key of keys) {
      const value = (row as Record<string, unknown>)[key];
      if (typeof value === 'number' && value > max) max = value;
    }
  }
  return max;
}

/** Stacked: the largest sum of the keys over the rows. */
export function largestSum(rows: readonly object[], keys: readonly string[]): number {
  let max = 0;
  for (const row of rows) {
    let sum = 0;
    for (const key of keys) {
      const value = (row as Record<string, unknown>)[key];
      if (typeof value === 'number') sum += value;
    }
    max = Math.max(max, sum);
  }
  return max;
}

const MS_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000,
  300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000,
  86_400_000,
];

/**
 * Y ticks for durations: a step a reader adds up at a glance in its own unit (5 ms, 200 ms,
 * 2 s, 15 s, 5 min, 1 h ...), at most `maxIntervals` of them, the top a multiple of the step.
 */
export function durationTicks(
  largestMs: number,
  maxIntervals = 4,
): { ticks: number[]; max: number } {
  const top = Number.isFinite(largestMs) && largestMs > 0 ? largestMs : 1;
  const step =
    MS_STEPS.find((size) => Math.ceil(top / size) <= maxIntervals) ??
    Math.ceil(top / maxIntervals / 86_400_000) * 86_400_000;
  const max = Math.ceil(top / step) * step;
  const ticks: number[] = [];
  for (let tick = 0; tick <= max; tick += step) ticks.push(tick);
  return { ticks, max };
}

/** The listed queues' sparklines summed minute by minute, as a one-hour history. */
export function summedHistory(sparklines: HistorySparklinesResponse): QueueHistory {
  const count = Math.max(0, ...sparklines.queues.map((queue) => queue.completed.length));
  const points: HistoryPoint[] = Array.from({ length: count }, (_, i) => ({
    at: sparklines.from + i * sparklines.stepMs,
    completed: 0,
    failed: 0,
    retried: 0,
    wait: null,
    run: null,
    backlog: null,
  }));
  for (const queue of sparklines.queues) {
    points.forEach((point, i) => {
      point.completed += queue.completed[i] ?? 0;
      point.failed += queue.failed[i] ?? 0;
      point.retried += queue.retried[i] ?? 0;
    });
  }
  const total = (key: 'completed' | 'failed' | 'retried') =>
    points.reduce((sum, point) => sum + point[key], 0);
  return {
    range: '1h',
    from: sparklines.from,
    to: sparklines.from + count * sparklines.stepMs,
    stepMs: sparklines.stepMs,
    points,
    total: {
      completed: total('completed'),
      failed: total('failed'),
      retried: total('retried'),
      wait: null,
      run: null,
    },
    names: [],
    hasData: sparklines.queues.some((queue) => queue.recorded),
  };
}
