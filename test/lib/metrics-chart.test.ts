/**
 * The metrics charts' arithmetic (components/metrics): y-axis ticks evenly spaced on a 1-2-5
 * step with the top rounded up to a multiple of it, and the minute under way kept off the
 * per-minute lines and sparklines, so they do not end in a drop that reads like an outage.
 */
import { describe, expect, it } from 'vitest';
import { chartRows, plotRows, splitOpenMinute } from '../../components/metrics/chart-data';
import {
  isOpenMinute,
  MINUTE_MS,
  openMinuteCount,
  sparklinePoints,
} from '../../components/metrics/open-minute';
import { valueTicks } from '../../components/metrics/value-ticks';
import type { MetricsTimeline, QueueMetricsSeries } from '../../lib/api-types';

function evenlySpaced(ticks: number[]): boolean {
  const step = ticks[1]! - ticks[0]!;
  return ticks.every((tick, index) => tick === index * step);
}

describe('valueTicks', () => {
  it('steps 1, 2 or 5 times a power of ten, from 0 to a multiple of the step', () => {
    expect(valueTicks(120)).toEqual({ ticks: [0, 50, 100, 150], max: 150 });
    expect(valueTicks(100)).toEqual({ ticks: [0, 50, 100], max: 100 });
    expect(valueTicks(7)).toEqual({ ticks: [0, 2, 4, 6, 8], max: 8 });
    expect(valueTicks(3)).toEqual({ ticks: [0, 1, 2, 3], max: 3 });
    expect(valueTicks(1_234)).toEqual({ ticks: [0, 500, 1_000, 1_500], max: 1_500 });
    expect(valueTicks(19_000)).toEqual({ ticks: [0, 5_000, 10_000, 15_000, 20_000], max: 20_000 });
  });

  it('gives an empty chart 0 and 1, and never a fractional step for counts', () => {
    expect(valueTicks(0)).toEqual({ ticks: [0, 1], max: 1 });
    expect(valueTicks(0.4)).toEqual({ ticks: [0, 1], max: 1 });
    expect(valueTicks(Number.NaN)).toEqual({ ticks: [0, 1], max: 1 });
  });

  it('is evenly spaced, covers the largest value and keeps to the interval budget', () => {
    for (let largest = 0; largest <= 5_000; largest += 7) {
      const { ticks, max } = valueTicks(largest);
      expect(evenlySpaced(ticks), String(largest)).toBe(true);
      expect(max, String(largest)).toBeGreaterThanOrEqual(largest);
      expect(ticks.at(-1)).toBe(max);
      expect(ticks.length - 1, String(largest)).toBeLessThanOrEqual(4);
      const step = ticks[1]!;
      expect(String(step / 10 ** Math.floor(Math.log10(step)))).toMatch(/^[125]$/);
    }
  });
});

const NOW = Date.UTC(2026, 0, 5, 12, 30, 20);
const THIS_MINUTE = Date.UTC(2026, 0, 5, 12, 30);

function timeline(points: [number, number][], pending: number, pendingSince: number) {
  return {
    points: points.map(([t, count]) => ({ t, count })),
    pending,
    pendingSince,
    total: 0,
    recorded: true,
  } satisfies MetricsTimeline;
}

describe('the minute under way on the throughput chart', () => {
  it('ends the lines at the last finished minute and keeps the open one apart', () => {
    const rows = chartRows({
      completed: timeline(
        [
          [THIS_MINUTE - 2 * MINUTE_MS, 120],
          [THIS_MINUTE - MINUTE_MS, 110],
        ],
        4,
        THIS_MINUTE,
      ),
      failed: timeline([[THIS_MINUTE - MINUTE_MS, 2]], 1, THIS_MINUTE),
    });
    const { closed, open } = splitOpenMinute(rows, NOW);
    expect(closed.map((row) => row.t)).toEqual([
      THIS_MINUTE - 2 * MINUTE_MS,
      THIS_MINUTE - MINUTE_MS,
    ]);
    expect(open).toEqual({ t: THIS_MINUTE, completed: 4, failed: 1 });
  });

  it('draws a pending count whose minute is over as the finished minute it is', () => {
    const earlier = THIS_MINUTE - 5 * MINUTE_MS;
    const rows = chartRows({
      completed: timeline([[earlier - MINUTE_MS, 9]], 6, earlier),
      failed: timeline([], 0, earlier),
    });
    const { closed, open } = splitOpenMinute(rows, NOW);
    expect(closed).toEqual([
      { t: earlier - MINUTE_MS, completed: 9 },
      { t: earlier, completed: 6, failed: 0 },
    ]);
    expect(open).toBeUndefined();
  });

  it('counts a minute stamped ahead of the clock (a worker clock ahead) into the open one', () => {
    const { closed, open } = splitOpenMinute(
      [
        { t: THIS_MINUTE - MINUTE_MS, completed: 3 },
        { t: THIS_MINUTE, completed: 1 },
        { t: THIS_MINUTE + MINUTE_MS, completed: 2, failed: 1 },
      ],
      NOW,
    );
    expect(closed).toEqual([{ t: THIS_MINUTE - MINUTE_MS, completed: 3 }]);
    expect(open).toEqual({ t: THIS_MINUTE, completed: 3, failed: 1 });
  });

  it('plots the open minute under keys of its own, so the lines have no value there', () => {
    const closed = [{ t: THIS_MINUTE - MINUTE_MS, completed: 110, failed: 2 }];
    expect(plotRows(closed, { t: THIS_MINUTE, completed: 4, failed: 1 })).toEqual([
      { t: THIS_MINUTE - MINUTE_MS, completed: 110, failed: 2 },
      { t: THIS_MINUTE, openCompleted: 4, openFailed: 1 },
    ]);
    expect(plotRows(closed, undefined)).toEqual(closed);
  });

  it('knows the open minute by the clock alone', () => {
    expect(isOpenMinute(THIS_MINUTE, NOW)).toBe(true);
    expect(isOpenMinute(THIS_MINUTE - 1, NOW)).toBe(false);
    expect(isOpenMinute(THIS_MINUTE, THIS_MINUTE + MINUTE_MS)).toBe(false);
  });
});

describe('the minute under way on a sparkline', () => {
  const series = (pendingSince: number | null): QueueMetricsSeries => ({
    perMinute: [5, 8, 6],
    pending: 2,
    pendingSince,
    total: 21,
  });

  it('leaves the minute under way out, and says its count as this minute', () => {
    expect(sparklinePoints(series(THIS_MINUTE), NOW)).toEqual([5, 8, 6]);
    expect(openMinuteCount(series(THIS_MINUTE), NOW)).toBe(2);
  });

  it('plots a pending count whose minute is over, and says 0 for this minute', () => {
    expect(sparklinePoints(series(THIS_MINUTE - MINUTE_MS), NOW)).toEqual([5, 8, 6, 2]);
    expect(openMinuteCount(series(THIS_MINUTE - MINUTE_MS), NOW)).toBe(0);
  });

  it('has nothing pending when nothing was recorded', () => {
    expect(sparklinePoints(series(null), NOW)).toEqual([5, 8, 6]);
    expect(openMinuteCount(series(null), NOW)).toBe(0);
  });
});
