/**
 * What a queue card's sparklines draw. From the timing history (GET /api/metrics/sparklines)
 * when OxMQ workers recorded outcomes in the last hour; for a queue only bullmq workers serve,
 * from bullmq's metrics lists when a worker started with the `metrics` option wrote them (the
 * overview reads those anyway, for its problems). Either way the minute under way is left out
 * of the line (a partial count would end it in a drop, open-minute.ts) and given in the caption.
 */
import type { QueueMetricsSeries, QueueOverview, QueueSparkline } from '@/lib/api-types';
import { openMinuteCount, sparklinePoints } from '../metrics/open-minute';

export interface SparklineSeries {
  /** Counts of the finished minutes, oldest first. */
  points: number[];
  /** Jobs so far in the minute under way. */
  thisMinute: number;
  total: number;
  /** What `total` covers, for the caption. */
  totalLabel: 'last hour' | 'total (metrics option)';
  source: 'history' | 'metrics';
}

export interface CardSparklines {
  completed: SparklineSeries;
  failed: SparklineSeries;
}

/** One history series: 60 minutes, the last one under way. */
function historySeries(perMinute: readonly number[]): SparklineSeries {
  return {
    points: perMinute.slice(0, -1),
    thisMinute: perMinute.at(-1) ?? 0,
    total: perMinute.reduce((sum, count) => sum + count, 0),
    totalLabel: 'last hour',
    source: 'history',
  };
}

function metricsSeries(series: QueueMetricsSeries, now: number): SparklineSeries {
  return {
    points: sparklinePoints(series, now),
    thisMinute: openMinuteCount(series, now),
    total: series.total,
    totalLabel: 'total (metrics option)',
    source: 'metrics',
  };
}

function keepsMetrics(series: QueueMetricsSeries): boolean {
  return series.total > 0 || series.pendingSince !== null;
}

/**
 * The card's sparklines: the history's when it has outcomes, else the metrics option's when a
 * worker wrote them, else the history's (flat). Undefined until the history has loaded, so a
 * card does not show one source and then the other.
 */
export function cardSparklines(
  queue: Pick<QueueOverview, 'metrics'>,
  history: QueueSparkline | undefined,
  loaded: boolean,
  now: number,
): CardSparklines | undefined {
  if (!loaded) return undefined;
  const { completed, failed } = queue.metrics;
  if (history?.recorded) {
    return { completed: historySeries(history.completed), failed: historySeries(history.failed) };
  }
  if (keepsMetrics(completed) || keepsMetrics(failed)) {
    return { completed: metricsSeries(completed, now), failed: metricsSeries(failed, now) };
  }
  return (
    history && {
      completed: historySeries(history.completed),
      failed: historySeries(history.failed),
    }
  );
}
