/**
 * Where a queue's limits come from. There are two sources, and the console shows both:
 *
 * - queue-wide settings in `Q meta`: `max` + `duration` (setGlobalRateLimit) and `concurrency`
 *   (setGlobalConcurrency), which the console's Limits form changes;
 * - each worker's own options, `limiter` and `concurrency`. They never reach meta: a worker
 *   hands its limiter to every fetch it makes, so Redis holds them only in the heartbeat record
 *   of an OxMQ worker (docs/redis-keys.md). bullmq workers and OxMQ workers with heartbeats off
 *   report nothing.
 *
 * How a fetch combines them (lua/includes/fetchNextJob.lua, bullmq 6.7.0's rule): the queue-wide
 * `max` wins over the worker's, the worker's window (`duration`) wins over the queue-wide one,
 * and every start counts in the one `Q limiter` counter all workers share. Concurrency: each
 * worker runs at most its own, and all of them together at most the queue-wide one
 * (lua/includes/isPausedOrMaxed.lua): both hold.
 */
import type { WorkerHeartbeatRecord } from './redis/worker-heartbeats';

export interface RateLimit {
  max: number;
  duration: number;
}

/** Workers that share one `limiter` option. */
export interface WorkerLimiterGroup extends RateLimit {
  workers: number;
}

/** What the live OxMQ workers of a queue report of their own options. */
export interface WorkerLimits {
  /** Live OxMQ workers whose heartbeat record was read. */
  reporting: number;
  /** Their distinct `limiter` options, the most common first. */
  limiters: WorkerLimiterGroup[];
  /** Reporting workers without a `limiter` option. */
  withoutLimiter: number;
  /** Sum of the reporting workers' own concurrency. */
  concurrency: number;
}

/** A rate limit a fetch applies, and where its numbers come from. */
export interface RateLimitInForce extends RateLimit {
  /**
   * `queue`: both numbers queue-wide (for workers without a limiter of their own); `workers`:
   * both from the workers' option; `both`: the queue-wide max with the workers' window.
   */
  from: 'queue' | 'workers' | 'both';
  /** Reporting workers whose fetches apply it (0: none reports, the queue-wide rule is all). */
  workers: number;
}

export function workerLimits(records: readonly WorkerHeartbeatRecord[]): WorkerLimits {
  const groups = new Map<string, WorkerLimiterGroup>();
  let withoutLimiter = 0;
  let concurrency = 0;
  for (const record of records) {
    concurrency += record.concurrency;
    if (!record.limiter) {
      withoutLimiter += 1;
      continue;
    }
    const key = `${record.limiter.max}/${record.limiter.duration}`;
    const group = groups.get(key) ?? { ...record.limiter, workers: 0 };
    group.workers += 1;
    groups.set(key, group);
  }
  const limiters = [...groups.values()].sort(
    (a, b) => b.workers - a.workers || a.max - b.max || a.duration - b.duration,
  );
  return { reporting: records.length, limiters, withoutLimiter, concurrency };
}

/** The rate limits fetches apply, one per distinct combination; empty when none applies. */
export function rateLimitsInForce(
  queueWide: RateLimit | null,
  workers: WorkerLimits,
): RateLimitInForce[] {
  const inForce: RateLimitInForce[] = workers.limiters.map((limiter) =>
    queueWide
      ? { max: queueWide.max, duration: limiter.duration, from: 'both', workers: limiter.workers }
      : { max: limiter.max, duration: limiter.duration, from: 'workers', workers: limiter.workers },
  );
  if (queueWide) {
    inForce.push({ ...queueWide, from: 'queue', workers: workers.withoutLimiter });
  }
  // Workers with different options can end up with the same numbers: one line each.
  const merged = new Map<string, RateLimitInForce>();
  for (const limit of inForce) {
    const key = `${limit.max}/${limit.duration}/${limit.from}`;
    const seen = merged.get(key);
    if (seen) seen.workers += limit.workers;
    else merged.set(key, { ...limit });
  }
  return [...merged.values()];
}
