/**
 * Queue-wide switches and limits of a memory queue: pause and resume, global concurrency and
 * rate limit, the manual rate limit, and the small reads and clean-ups bullmq's Queue offers.
 */
import { checkInteger, checkMillis } from '../operation-validation';
import type { MemoryQueue } from './memory-queue';
import { windowTtl } from './rate-window';

/** A manual rate limit's counter: above any real `max`, as bullmq stores it. */
const MANUAL_RATE_LIMIT_COUNT = Number.MAX_SAFE_INTEGER;

export function pause(queue: MemoryQueue): void {
  queue.meta.paused = '1';
  queue.signals.clear(queue.markerBox);
  queue.emit('paused');
}

export function resume(queue: MemoryQueue): void {
  delete queue.meta.paused;
  if (queue.readyCount() > 0) queue.signals.signal(queue.markerBox, '0', 0);
  else queue.signalNextDelayed();
  queue.emit('resumed');
}

export function setGlobalConcurrency(queue: MemoryQueue, concurrency: number | undefined): void {
  if (concurrency === undefined) {
    delete queue.meta.concurrency;
    return;
  }
  checkInteger('concurrency', concurrency, 1);
  queue.meta.concurrency = String(concurrency);
}

export function setGlobalRateLimit(
  queue: MemoryQueue,
  limit: { max: number; duration: number } | undefined,
): void {
  if (limit === undefined) {
    delete queue.meta.max;
    delete queue.meta.duration;
    return;
  }
  checkInteger('max', limit.max, 1);
  checkInteger('duration', limit.duration, 1);
  queue.meta.max = String(limit.max);
  queue.meta.duration = String(limit.duration);
}

/** No worker takes a job for `ms`. */
export function rateLimit(queue: MemoryQueue, ms: number): void {
  const px = checkMillis('rate limit', ms, 1);
  queue.limiter = { count: MANUAL_RATE_LIMIT_COUNT, expiresAt: Date.now() + px };
}

/**
 * Remaining ms of the rate limit. With a max (given, else the queue's): the window's ttl once
 * its count reached it, else 0. Without any max: the window's raw ttl (-2 none, -1 no expiry).
 */
export function getRateLimitTtl(queue: MemoryQueue, maxJobs?: number): number {
  if (maxJobs !== undefined) checkInteger('maxJobs', maxJobs, 1);
  const now = Date.now();
  const ttl = windowTtl(queue.limiter, now);
  const max = maxJobs ?? (queue.meta.max !== undefined ? Number(queue.meta.max) : undefined);
  if (max === undefined || Number.isNaN(max)) return ttl;
  const count = ttl === -2 ? 0 : (queue.limiter?.count ?? 0);
  return count >= max ? ttl : 0;
}

/** Ends the current rate-limit window now; 1 if there was one. */
export function removeRateLimitKey(queue: MemoryQueue): number {
  const open = windowTtl(queue.limiter, Date.now()) !== -2;
  queue.limiter = undefined;
  return open ? 1 : 0;
}

export function isMaxed(queue: MemoryQueue): boolean {
  if (queue.meta.concurrency === undefined) return false;
  return queue.active.length >= Number(queue.meta.concurrency);
}

export function trimEvents(queue: MemoryQueue, maxLength: number): number {
  checkInteger('maxLength', maxLength, 0);
  return queue.events.trim(maxLength);
}
