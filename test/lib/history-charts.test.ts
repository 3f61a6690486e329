/**
 * The history charts' arithmetic (components/metrics/history-*.ts, components/queues/
 * sparkline-series.ts): the point under way kept off the count lines, rates and backlogs left
 * empty where nothing was recorded rather than drawn as 0, duration units and ticks a person
 * reads, the range from the URL, and where a queue card's sparklines come from.
 */
import { describe, expect, it } from 'vitest';
import {
  formatMs,
  formatPercent,
  parseHistoryRange,
  timeTicks,
} from '../../components/metrics/history-format';
import {
  backlogRows,
  durationTicks,
  failureRateOf,
  failureRateRows,
  hasOutcomes,
  latestBacklog,
  summedHistory,
  throughputRows,
  timingRows,
} from '../../components/metrics/history-rows';
import { cardSparklines } from '../../components/queues/sparkline-series';
import type { HistoryPoint, QueueMetricsSeries, QueueSparkline } from '../../lib/api-types';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 2, 3, 14, 0);

function point(at: number, fields: Partial<HistoryPoint> = {}): HistoryPoint {
  return {
    at,
    completed: 0,
    failed: 0,
    retried: 0,
    wait: null,
    run: null,
    backlog: null,
    ...fields,
  };
}

const timing = (p50Ms: number, p95Ms: number, p99Ms: number) => ({
  count: 10,
  meanMs: p50Ms,
  p50Ms,
  p95Ms,
  p99Ms,
});

describe('throughput rows', () => {
  it('ends the count lines before the point under way, which gets keys of its own', () => {
    const rows = throughputRows([
      point(T0, { completed: 120, failed: 2 }),
      point(T0 + MINUTE, { completed: 110, retried: 1 }),
      point(T0 + 2 * MINUTE, { completed: 4, failed: 1 }),
    ]);
    expect(rows).toEqual([
      { at: T0, completed: 120, failed: 2, retried: 0 },
      { at: T0 + MINUTE, completed: 110, failed: 0, retried: 1 },
      { at: T0 + 2 * MINUTE, openCompleted: 4, openFailed: 1, openRetried: 0 },
    ]);
  });
});

describe('failure rate', () => {
  it('is per point of the finished jobs and of the attempts, empty where none ended', () => {
    const rows = failureRateRows([
      point(T0, { completed: 3, failed: 1, retried: 4 }),
      point(T0 + MINUTE),
    ]);
    expect(rows[0]).toEqual({ at: T0, failedPct: 25, attemptsFailedPct: 62.5 });
    expect(rows[1]).toEqual({ at: T0 + MINUTE, failedPct: null, attemptsFailedPct: null });
    expect(failureRateOf({ completed: 24, failed: 4, retried: 2, wait: null, run: null })).toEqual({
      finished: 28,
      failed: 4,
      attempts: 30,
      attemptsFailed: 6,
    });
  });
});

describe('timing and backlog rows', () => {
  it('leave a point without timings or a sample empty, not 0', () => {
    const points = [
      point(T0, { run: timing(40, 120, 400), backlog: { waiting: 5, active: 2, completed: 9 } }),
      point(T0 + MINUTE),
    ];
    expect(timingRows(points, 'run')).toEqual([
      { at: T0, p50: 40, p95: 120, p99: 400 },
      { at: T0 + MINUTE, p50: null, p95: null, p99: null },
    ]);
    expect(timingRows(points, 'wait')[0]).toEqual({ at: T0, p50: null, p95: null, p99: null });
    const backlog = backlogRows(points);
    expect(backlog[0]).toEqual({
      at: T0,
      waiting: 5,
      prioritized: 0,
      'waiting-children': 0,
      delayed: 0,
      active: 2,
    });
    expect(backlog[1]).toEqual({ at: T0 + MINUTE });
    expect(latestBacklog(points)).toEqual({ at: T0, backlog: points[0]!.backlog });
    expect(latestBacklog([point(T0)])).toBeUndefined();
  });

  it('tells outcomes from a history of backlog samples alone', () => {
    const total = { completed: 0, failed: 0, retried: 0, wait: null, run: null };
    expect(hasOutcomes({ total })).toBe(false);
    expect(hasOutcomes({ total: { ...total, retried: 1 } })).toBe(true);
  });
});

describe('durations', () => {
  it('are written in the unit a person reads', () => {
    expect(formatMs(0.84)).toBe('0.84 ms');
    expect(formatMs(42.25)).toBe('42.3 ms');
    expect(formatMs(420)).toBe('420 ms');
    expect(formatMs(1_500)).toBe('1.5 s');
    expect(formatMs(42_000)).toBe('42 s');
    expect(formatMs(12 * MINUTE)).toBe('12 min');
    expect(formatMs(3.25 * 3_600_000)).toBe('3.25 h');
    expect(formatMs(5 * 86_400_000)).toBe('5 d');
    expect(formatPercent(4 / 28)).toBe('14.3 %');
    expect(formatPercent(0)).toBe('0 %');
    expect(formatPercent(0.004)).toBe('0.4 %');
  });

  it('get ticks on round steps of their unit, the top covering the largest value', () => {
    expect(durationTicks(400)).toEqual({ ticks: [0, 100, 200, 300, 400], max: 400 });
    expect(durationTicks(430)).toEqual({ ticks: [0, 200, 400, 600], max: 600 });
    expect(durationTicks(7_000)).toEqual({ ticks: [0, 2_000, 4_000, 6_000, 8_000], max: 8_000 });
    expect(durationTicks(50 * MINUTE).ticks).toEqual([0, 15, 30, 45, 60].map((m) => m * MINUTE));
    expect(durationTicks(0)).toEqual({ ticks: [0, 1], max: 1 });
    for (let largest = 1; largest < 100_000_000; largest *= 1.7) {
      const { ticks, max } = durationTicks(largest);
      expect(max).toBeGreaterThanOrEqual(largest);
      expect(ticks.length - 1).toBeLessThanOrEqual(4);
    }
  });
});

describe('the time axis and the range', () => {
  it('ticks on round times, at most about eight, inside the range', () => {
    for (const span of [3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000]) {
      const ticks = timeTicks(T0 - span, T0);
      expect(ticks.length).toBeGreaterThanOrEqual(3);
      expect(ticks.length).toBeLessThanOrEqual(9);
      expect(ticks.every((tick) => tick >= T0 - span && tick <= T0)).toBe(true);
    }
    const hour = timeTicks(T0 - 3_600_000, T0);
    expect(hour.every((tick) => new Date(tick).getSeconds() === 0)).toBe(true);
    expect(new Set(hour.map((tick) => new Date(tick).getMinutes() % 10)).size).toBe(1);
  });

  it('reads a range from the URL, and anything else as the default', () => {
    expect(parseHistoryRange('24h')).toBe('24h');
    expect(parseHistoryRange('30d')).toBe('30d');
    expect(parseHistoryRange('2h')).toBe('1h');
    expect(parseHistoryRange(null)).toBe('1h');
  });
});

describe('the overview', () => {
  const line = (completed: number[], recorded = true): QueueSparkline => ({
    prefix: 'bull',
    name: 'q',
    completed,
    failed: completed.map(() => 0),
    retried: completed.map(() => 0),
    recorded,
  });
  const metrics = (total: number): QueueMetricsSeries => ({
    perMinute: total ? [total] : [],
    pending: 0,
    pendingSince: total ? T0 - 5 * MINUTE : null,
    total,
  });
  const queue = (total: number) => ({
    metrics: { completed: metrics(total), failed: metrics(0) },
  });

  it('sums the listed queues minute by minute', () => {
    const summed = summedHistory({
      from: T0,
      stepMs: MINUTE,
      queues: [line([1, 2, 3]), line([0, 0, 0], false), line([4, 0, 1])],
    });
    expect(summed.points.map((p) => p.completed)).toEqual([5, 2, 4]);
    expect(summed.total.completed).toBe(11);
    expect(summed.to - summed.from).toBe(3 * MINUTE);
    expect(summed.hasData).toBe(true);
  });

  it('draws a card from the history, else from the metrics option, and waits for the history', () => {
    const fromHistory = cardSparklines(queue(7), line([3, 4, 2]), true, T0);
    expect(fromHistory?.completed).toEqual({
      points: [3, 4],
      thisMinute: 2,
      total: 9,
      totalLabel: 'last hour',
      source: 'history',
    });
    const bullmqOnly = cardSparklines(queue(7), line([0, 0, 0], false), true, T0);
    expect(bullmqOnly?.completed).toMatchObject({ source: 'metrics', total: 7, points: [7, 0] });
    const idle = cardSparklines(queue(0), line([0, 0, 0], false), true, T0);
    expect(idle?.completed).toMatchObject({ source: 'history', total: 0 });
    expect(cardSparklines(queue(7), undefined, false, T0)).toBeUndefined();
  });
});
