/**
 * The minute still under way. Its count only grows until the minute ends, so drawn as the last
 * point of a per-minute line it is a drop at the right edge of every chart, which reads like an
 * outage. Charts end their lines at the last finished minute and show this one apart, marked as
 * partial.
 */
import type { QueueMetricsSeries } from '@/lib/api-types';

export const MINUTE_MS = 60_000;

/** Start of the minute `now` falls in. */
export function minuteStart(now: number): number {
  return Math.floor(now / MINUTE_MS) * MINUTE_MS;
}

/** Whether a minute starting at `t` has not ended yet at `now`. */
export function isOpenMinute(t: number, now: number): boolean {
  return t >= minuteStart(now);
}

/**
 * A sparkline's points: the closed minutes, then the pending count only when its minute is over
 * (no job has finished since, so bullmq has not pushed it yet); the minute under way is left out.
 */
export function sparklinePoints(series: QueueMetricsSeries, now: number): number[] {
  if (series.pendingSince === null || isOpenMinute(series.pendingSince, now)) {
    return series.perMinute;
  }
  return [...series.perMinute, series.pending];
}

/** Jobs finished so far in the minute under way (0 when the pending count's minute is over). */
export function openMinuteCount(series: QueueMetricsSeries, now: number): number {
  return series.pendingSince !== null && isOpenMinute(series.pendingSince, now)
    ? series.pending
    : 0;
}
