/**
 * Completed and failed timelines merged into one row per minute for recharts. The two series
 * have their own minute boundaries (each metrics hash moves on its own), so rows are keyed by
 * time; a minute one series does not cover is left empty rather than claimed as zero. The
 * jobs since the last closed minute (`pending`) are put at that minute's start; whether that
 * minute is still under way is splitOpenMinute's question, asked with the clock.
 */
import type { MetricsTimeline, QueueMetrics } from '@/lib/api-types';
import { isOpenMinute, minuteStart } from './open-minute';

export interface ChartRow {
  t: number;
  completed?: number;
  failed?: number;
}

export function chartRows(metrics: Pick<QueueMetrics, 'completed' | 'failed'>): ChartRow[] {
  const rows = new Map<number, ChartRow>();
  const put = (series: 'completed' | 'failed', timeline: MetricsTimeline) => {
    for (const point of timeline.points) {
      const row = rows.get(point.t) ?? { t: point.t };
      row[series] = point.count;
      rows.set(point.t, row);
    }
    if (timeline.pendingSince !== null) {
      const row = rows.get(timeline.pendingSince) ?? { t: timeline.pendingSince };
      row[series] = (row[series] ?? 0) + timeline.pending;
      rows.set(timeline.pendingSince, row);
    }
  };
  put('completed', metrics.completed);
  put('failed', metrics.failed);
  return [...rows.values()].sort((a, b) => a.t - b.t);
}

/**
 * The rows of finished minutes, to draw as lines, and the minute under way at `now`
 * (open-minute.ts), to show apart as partial. A row stamped later than this minute (a worker's
 * clock ahead of the browser's) is under way too and counted into it.
 */
export function splitOpenMinute(
  rows: readonly ChartRow[],
  now: number,
): { closed: ChartRow[]; open: ChartRow | undefined } {
  const closed = rows.filter((row) => !isOpenMinute(row.t, now));
  const later = rows.filter((row) => isOpenMinute(row.t, now));
  if (later.length === 0) return { closed, open: undefined };
  const open: ChartRow = { t: minuteStart(now) };
  for (const row of later) {
    if (row.completed !== undefined) open.completed = (open.completed ?? 0) + row.completed;
    if (row.failed !== undefined) open.failed = (open.failed ?? 0) + row.failed;
  }
  return { closed, open };
}

/** A row to plot: a finished minute's counts, or the open minute's under keys of their own. */
export interface PlotRow extends ChartRow {
  openCompleted?: number;
  openFailed?: number;
}

/**
 * The finished minutes, then the open one with its counts under other keys: the completed and
 * failed lines have no value there and end at the last finished minute, and the open minute is
 * drawn by series of its own (a dot each).
 */
export function plotRows(closed: readonly ChartRow[], open: ChartRow | undefined): PlotRow[] {
  if (!open) return [...closed];
  return [...closed, { t: open.t, openCompleted: open.completed, openFailed: open.failed }];
}

/** The largest count of either series, for the y axis. */
export function largestCount(rows: readonly ChartRow[]): number {
  return rows.reduce((max, row) => Math.max(max, row.completed ?? 0, row.failed ?? 0), 0);
}

export function hasMetrics(metrics: Pick<QueueMetrics, 'completed' | 'failed'>): boolean {
  return metrics.completed.recorded || metrics.failed.recorded;
}

export function formatMinute(t: number): string {
  return new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
