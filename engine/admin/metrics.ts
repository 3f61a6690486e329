/**
 * Throughput over time for the console's metrics page, from bullmq's metrics
 * layout: `metrics:<type>` holds a running `count` and the count and time of the last minute
 * boundary (`prevCount`, `prevTS`); `metrics:<type>:data` one count per closed minute, newest
 * first. Only workers started with the `metrics` option write them.
 *
 * Timestamps: when a job finishes in minute M after the last boundary minute P, the script
 * pushes the delta (attributed to P) and M-P-1 zeros above it, then sets prevTS to now. So the
 * head of the list is the minute before prevTS's minute, and jobs since then are `pending`.
 */
import type { RedisClient } from '../backend/redis/connection';
import type { Metrics } from '../backend/queue-backend';
import { queueHandle } from './queue-handle';
import type { QueueRef } from './redis/queues';

const MINUTE_MS = 60_000;

export const METRICS_LIMITS = {
  /** The most minutes one read returns (a day). */
  maxMinutes: 1_440,
  defaultMinutes: 60,
} as const;

export interface MetricsPoint {
  /** Start of the minute, ms since the epoch. */
  t: number;
  count: number;
}

export interface MetricsTimeline {
  /** Closed minutes, oldest first. */
  points: MetricsPoint[];
  /** Jobs finished since the last closed minute, which starts at `pendingSince`. */
  pending: number;
  pendingSince: number | null;
  /** The running total the metrics hash has counted. */
  total: number;
  /** False when no worker with `metrics` ever wrote this queue's metrics. */
  recorded: boolean;
}

export interface QueueMetrics extends QueueRef {
  completed: MetricsTimeline;
  failed: MetricsTimeline;
}

export function clampMinutes(minutes: number | undefined): number {
  const value = Math.floor(minutes ?? METRICS_LIMITS.defaultMinutes);
  return Math.max(1, Math.min(Number.isFinite(value) ? value : 1, METRICS_LIMITS.maxMinutes));
}

export async function getQueueMetrics(
  client: RedisClient,
  queue: QueueRef,
  opts: { minutes?: number } = {},
): Promise<QueueMetrics> {
  const minutes = clampMinutes(opts.minutes);
  const handle = queueHandle(client, queue.prefix, queue.name);
  const [completed, failed] = await Promise.all([
    handle.getMetrics('completed', 0, minutes - 1),
    handle.getMetrics('failed', 0, minutes - 1),
  ]);
  return {
    prefix: queue.prefix,
    name: queue.name,
    completed: toTimeline(completed),
    failed: toTimeline(failed),
  };
}

/** Exported for tests of the time axis; `metrics` is Queue.getMetrics' answer. */
export function toTimeline(metrics: Metrics): MetricsTimeline {
  const recorded = metrics.meta.prevTS > 0;
  if (!recorded) {
    return { points: [], pending: 0, pendingSince: null, total: 0, recorded };
  }
  const boundary = Math.floor(metrics.meta.prevTS / MINUTE_MS) * MINUTE_MS;
  const points = metrics.data.map((count, index) => ({
    t: boundary - (index + 1) * MINUTE_MS,
    count,
  }));
  points.reverse();
  return {
    points,
    pending: Math.max(0, metrics.meta.count - metrics.meta.prevCount),
    pendingSince: boundary,
    total: metrics.meta.count,
    recorded,
  };
}
