/**
 * Completed and failed timelines merged into one row per minute for recharts. The two series
 * have their own minute boundaries (each metrics hash moves on its own), so rows are keyed by
 * time; a minute one series does not cover is left empty rather than claimed as zero. The
 * still-open minute (`pending`) is plotted at its start and flagged.
 */
import type { MetricsTimeline, QueueMetrics } from '@/lib/api-types';

export interface ChartRow {
  t: number;
  completed?: number;
  failed?: number;
  /** True for the row holding jobs since the last closed minute. */
  open?: boolean;
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
      row.open = true;
      rows.set(timeline.pendingSince, row);
    }
  };
  put('completed', metrics.completed);
  put('failed', metrics.failed);
  return [...rows.values()].sort((a, b) => a.t - b.t);
}

export function hasMetrics(metrics: Pick<QueueMetrics, 'completed' | 'failed'>): boolean {
  return metrics.completed.recorded || metrics.failed.recorded;
}

export function formatMinute(t: number): string {
  return new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
