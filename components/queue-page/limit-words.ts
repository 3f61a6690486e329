/**
 * The Limits panel's sentences: each limit with where it comes from, so a worker's own limiter
 * never reads as "none" next to a header that says the queue is rate limited.
 */
import { formatCount } from '@/lib/format-number';
import type { QueueLimits, RateLimitInForce, WorkerLimits } from '@/lib/api-types';

function perWindow(limit: { max: number; duration: number }): string {
  return `${formatCount(limit.max)} per ${formatCount(limit.duration)} ms`;
}

function workersWord(count: number): string {
  return count === 1 ? '1 worker' : `${formatCount(count)} workers`;
}

export function queueWideRate(limits: QueueLimits): string {
  return limits.rateLimit ? perWindow(limits.rateLimit) : 'none';
}

export function workersRate(workers: WorkerLimits): string {
  if (workers.reporting === 0) return 'no OxMQ worker reports its options';
  const limiters = workers.limiters.map(
    (limiter) => `${perWindow(limiter)} (${workersWord(limiter.workers)})`,
  );
  if (workers.withoutLimiter > 0) limiters.push(`none (${workersWord(workers.withoutLimiter)})`);
  return limiters.join('; ');
}

function inForceLine(limit: RateLimitInForce): string {
  switch (limit.from) {
    case 'workers':
      return `${perWindow(limit)}, the workers' own limiter (${workersWord(limit.workers)})`;
    case 'both':
      return `${perWindow(limit)}: the queue-wide max in the workers' ${formatCount(limit.duration)} ms window (${workersWord(limit.workers)})`;
    case 'queue':
      return `${perWindow(limit)}, queue-wide, for workers without a limiter of their own`;
  }
}

export function rateInForce(limits: QueueLimits): string[] {
  if (limits.rateLimitsInForce.length === 0) return ['none: job starts are not rate limited'];
  return limits.rateLimitsInForce.map(inForceLine);
}

export function workersConcurrency(workers: WorkerLimits): string {
  if (workers.reporting === 0) return 'no OxMQ worker reports its options';
  return `${formatCount(workers.concurrency)} in all (${workersWord(workers.reporting)})`;
}
