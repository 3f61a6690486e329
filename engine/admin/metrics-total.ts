/**
 * Completed and failed jobs per minute summed over many queues, for the overview's total
 * throughput chart. Each queue's timeline comes from metrics.ts (bullmq's metrics keys, written
 * only by workers started with the `metrics` option); queues that keep none add nothing and are
 * counted apart, so the chart can say how many queues it covers.
 */
import type { RedisClient } from '../backend/redis/connection';
import { clampMinutes, getQueueMetrics, type MetricsTimeline } from './metrics';
import type { QueueRef } from './redis/queues';

export interface TotalThroughput {
  completed: MetricsTimeline;
  failed: MetricsTimeline;
  /** Queues summed over. */
  queues: number;
  /** Of those, the queues whose metrics a worker has written. */
  queuesWithMetrics: number;
  minutes: number;
}

/** Two metrics reads per queue (metrics.ts), all queues at once. */
export async function getTotalThroughput(
  client: RedisClient,
  queues: readonly QueueRef[],
  opts: { minutes?: number } = {},
): Promise<TotalThroughput> {
  const minutes = clampMinutes(opts.minutes);
  const all = await Promise.all(queues.map((queue) => getQueueMetrics(client, queue, { minutes })));
  return {
    completed: sumTimelines(all.map((queue) => queue.completed)),
    failed: sumTimelines(all.map((queue) => queue.failed)),
    queues: queues.length,
    queuesWithMetrics: all.filter((queue) => queue.completed.recorded || queue.failed.recorded)
      .length,
    minutes,
  };
}

/**
 * Sums timelines minute by minute. Each queue's open minute starts at its own `pendingSince`:
 * the newest of them stays the sum's open minute, and an older one (a queue that finished
 * nothing since) is added to the closed point of its minute, where it belongs.
 */
export function sumTimelines(timelines: readonly MetricsTimeline[]): MetricsTimeline {
  const recorded = timelines.filter((timeline) => timeline.recorded);
  if (recorded.length === 0) {
    return { points: [], pending: 0, pendingSince: null, total: 0, recorded: false };
  }
  const pendingSince = Math.max(...recorded.map((timeline) => timeline.pendingSince ?? 0));
  const counts = new Map<number, number>();
  const add = (t: number, count: number) => counts.set(t, (counts.get(t) ?? 0) + count);
  let pending = 0;
  let total = 0;
  for (const timeline of recorded) {
    total += timeline.total;
    for (const point of timeline.points) add(point.t, point.count);
    if (timeline.pendingSince === pendingSince) pending += timeline.pending;
    else if (timeline.pendingSince !== null) add(timeline.pendingSince, timeline.pending);
  }
  const points = [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, count]) => ({ t, count }));
  return { points, pending, pendingSince, total, recorded: true };
}
