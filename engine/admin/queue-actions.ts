/**
 * Queue-wide operations and limit tuning for the console's queue page, thin
 * over the engine's Queue so they mean exactly what bullmq's methods mean.
 */
import type { RedisClient } from '../backend/redis/connection';
import type { CleanState } from '../backend/queue-operations';
import {
  rateLimitsInForce,
  workerLimits,
  type RateLimit,
  type RateLimitInForce,
  type WorkerLimits,
} from './limit-sources';
import { queueHandle } from './queue-handle';
import { listWorkerHeartbeats } from './redis/worker-heartbeats';

/** Most jobs one clean call removes; a bigger backlog takes several clicks, each bounded. */
export const CLEAN_LIMIT = 10_000;

export async function drainQueue(
  client: RedisClient,
  prefix: string,
  name: string,
  delayed: boolean,
): Promise<void> {
  await queueHandle(client, prefix, name).drain(delayed);
}

export async function cleanQueue(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: { state: CleanState | 'waiting'; graceMs: number; limit?: number },
): Promise<string[]> {
  const limit = Math.max(1, Math.min(opts.limit ?? CLEAN_LIMIT, CLEAN_LIMIT));
  return queueHandle(client, prefix, name).clean(opts.graceMs, limit, opts.state);
}

export async function obliterateQueue(
  client: RedisClient,
  prefix: string,
  name: string,
  force: boolean,
): Promise<void> {
  await queueHandle(client, prefix, name).obliterate({ force });
}

export interface QueueLimits {
  /** The queue-wide rate limit (meta `max` + `duration`): what setQueueLimits changes. */
  rateLimit: RateLimit | null;
  /** The queue-wide concurrency (meta `concurrency`): what setQueueLimits changes. */
  globalConcurrency: number | null;
  /** ms left in the limiter's current window; 0 when not limited. */
  rateLimitTtlMs: number;
  /** The live OxMQ workers' own `limiter` and `concurrency` options, from their heartbeats. */
  workerLimits: WorkerLimits;
  /** The rate limits fetches apply, combining both sources (limit-sources.ts). */
  rateLimitsInForce: RateLimitInForce[];
}

/**
 * Both sources of a queue's limits. The heartbeat read is the Live workers panel's (one
 * ZREVRANGE, one ZCARD, one pipeline of at most 100 HGETALLs).
 */
export async function getQueueLimits(
  client: RedisClient,
  prefix: string,
  name: string,
): Promise<QueueLimits> {
  const queue = queueHandle(client, prefix, name);
  const [rateLimit, globalConcurrency, ttl, heartbeats] = await Promise.all([
    queue.getGlobalRateLimit(),
    queue.getGlobalConcurrency(),
    queue.getRateLimitTtl(),
    listWorkerHeartbeats(client, prefix, name),
  ]);
  const fromWorkers = workerLimits(heartbeats.workers);
  return {
    rateLimit,
    globalConcurrency,
    rateLimitTtlMs: Math.max(0, ttl),
    workerLimits: fromWorkers,
    rateLimitsInForce: rateLimitsInForce(rateLimit, fromWorkers),
  };
}

/** null removes a limit; undefined leaves it as it is. */
export async function setQueueLimits(
  client: RedisClient,
  prefix: string,
  name: string,
  input: {
    rateLimit?: { max: number; duration: number } | null;
    globalConcurrency?: number | null;
  },
): Promise<QueueLimits> {
  const queue = queueHandle(client, prefix, name);
  if (input.rateLimit === null) await queue.removeGlobalRateLimit();
  else if (input.rateLimit)
    await queue.setGlobalRateLimit(input.rateLimit.max, input.rateLimit.duration);
  if (input.globalConcurrency === null) await queue.removeGlobalConcurrency();
  else if (input.globalConcurrency !== undefined) {
    await queue.setGlobalConcurrency(input.globalConcurrency);
  }
  return getQueueLimits(client, prefix, name);
}
