/**
 * Where a queue's limits come from (engine/admin/limit-sources.ts): a worker's own `limiter`
 * travels in its heartbeat record, getQueueLimits reports it next to the queue-wide setting, and
 * "in force" follows the fetch's rule (the queue-wide max within the worker's window, the
 * precedence test/engine/rate-limits.test.ts checks on real starts).
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import {
  getQueueLimits,
  listWorkerHeartbeats,
  rateLimitsInForce,
  workerLimits,
  type WorkerHeartbeatRecord,
} from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const heartbeatInterval = 100;

function record(
  concurrency: number,
  limiter?: { max: number; duration: number },
): WorkerHeartbeatRecord {
  return {
    id: `w${Math.random()}`,
    queue: 'q',
    prefix: 'bull',
    host: 'h',
    pid: 1,
    version: 'x',
    concurrency,
    active: 0,
    jobIds: [],
    completed: 0,
    failed: 0,
    lockRenewalFailures: 0,
    quiet: false,
    paused: false,
    startedAt: 1,
    lastHeartbeat: 1,
    heartbeatInterval: 5000,
    ...(limiter && { limiter }),
  };
}

describe('a worker reports its own limiter', () => {
  it('in its heartbeat record, in the same one script call; none without the option', async () => {
    const name = uniqueQueueName('limit-src');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const limited = track(
      new Worker(name, async () => 'ok', {
        connection: redisOptions(),
        limiter: { max: 2, duration: 1000 },
        concurrency: 3,
        heartbeatInterval,
      }),
    );
    const plain = track(
      new Worker(name, async () => 'ok', {
        connection: redisOptions(),
        concurrency: 4,
        heartbeatInterval,
      }),
    );
    const { workers } = (await waitFor(async () => {
      const list = await listWorkerHeartbeats(redis, 'bull', name);
      return list.workers.length === 2 ? list : undefined;
    }))!;
    expect(workers.find((w) => w.id === limited.id)?.limiter).toEqual({ max: 2, duration: 1000 });
    expect(workers.find((w) => w.id === plain.id)).not.toHaveProperty('limiter');
    const raw = await redis.hgetall(`bull:${name}:oxmq:worker:${limited.id}`);
    expect(raw).toMatchObject({ limiterMax: '2', limiterDuration: '1000' });

    const limits = await getQueueLimits(redis, 'bull', name);
    expect(limits.rateLimit).toBeNull();
    expect(limits.workerLimits).toEqual({
      reporting: 2,
      limiters: [{ max: 2, duration: 1000, workers: 1 }],
      withoutLimiter: 1,
      concurrency: 7,
    });
    expect(limits.rateLimitsInForce).toEqual([
      { max: 2, duration: 1000, from: 'workers', workers: 1 },
    ]);

    await queue.setGlobalRateLimit(5, 60_000);
    const both = await getQueueLimits(redis, 'bull', name);
    expect(both.rateLimit).toEqual({ max: 5, duration: 60_000 });
    expect(both.rateLimitsInForce).toEqual([
      { max: 5, duration: 1000, from: 'both', workers: 1 },
      { max: 5, duration: 60_000, from: 'queue', workers: 1 },
    ]);
  });
});

describe('rateLimitsInForce', () => {
  it('the queue-wide max within each worker window; queue-wide alone for the rest', () => {
    const workers = workerLimits([
      record(2, { max: 2, duration: 1000 }),
      record(2, { max: 9, duration: 1000 }),
      record(1, { max: 2, duration: 1000 }),
    ]);
    expect(workers.limiters).toEqual([
      { max: 2, duration: 1000, workers: 2 },
      { max: 9, duration: 1000, workers: 1 },
    ]);
    // Different options, the same numbers once the queue-wide max replaces theirs: one line.
    expect(rateLimitsInForce({ max: 4, duration: 500 }, workers)).toEqual([
      { max: 4, duration: 1000, from: 'both', workers: 3 },
      { max: 4, duration: 500, from: 'queue', workers: 0 },
    ]);
    expect(rateLimitsInForce(null, workerLimits([record(3)]))).toEqual([]);
    expect(rateLimitsInForce({ max: 1, duration: 10 }, workerLimits([]))).toEqual([
      { max: 1, duration: 10, from: 'queue', workers: 0 },
    ]);
  });
});
