/**
 * How long the rate limiter holds job starts back, as a fetch judges it. `Q limiter` counts
 * starts in the current window whoever set the limit; it holds starts back only once the count
 * reaches the max. With a queue-wide max in `Q meta` the engine's getRateLimitTtl compares with
 * it. Without one the max is each worker's own `limiter` option, which Redis holds only in the
 * heartbeat records of OxMQ workers (engine/admin/limit-sources.ts): a live window below that
 * max holds nothing back, and saying "rate limited" then would be false. When no worker reports
 * a limiter (bullmq workers, heartbeats off) any live window counts, as bullmq's getRateLimitTtl
 * counts it.
 */
import type { RedisClient } from '../../backend/redis/connection';
import type { Queue } from '../../queue/queue';
import { listWorkerHeartbeats } from './worker-heartbeats';

/** Heartbeat records read to find the workers' limiter. */
const RECORDS_READ = 20;

/** Milliseconds job starts are still held back; 0 when they are not. */
export async function rateLimitHoldMs(client: RedisClient, queue: Queue): Promise<number> {
  const [ttl, metaMax] = await Promise.all([
    queue.getRateLimitTtl(),
    client.hget(queue.keys.meta, 'max'),
  ]);
  if (ttl <= 0) return 0;
  if (metaMax !== null) return ttl;
  const { workers } = await listWorkerHeartbeats(client, queue.prefix, queue.name, {
    limit: RECORDS_READ,
  });
  const maxes = workers.flatMap((worker) => (worker.limiter ? [worker.limiter.max] : []));
  if (maxes.length === 0) return ttl;
  // Workers with different limiters each stop at their own max: the first to stop is held.
  return Math.max(0, await queue.getRateLimitTtl(Math.min(...maxes)));
}
