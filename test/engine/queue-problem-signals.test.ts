/**
 * The overview's `stalled-recently` and `workers-missing-heartbeats` problems, read from Redis as
 * real workers leave it (engine/admin/redis/problem-signals.ts): a worker SIGKILLed while it holds
 * a job whose stall the checker of either library then records, and an OxMQ worker SIGKILLed
 * without closing while another one keeps beating.
 */
import { Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { getQueueOverview, missingWorkers, recentStalls } from 'oxmq/admin';
import { QueueKeys } from 'oxmq/internals';
import { startChildWorker, type ChildWorker } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

function children() {
  const started: ChildWorker[] = [];
  track({ close: () => Promise.all(started.map((child) => child.kill())) });
  return (child: ChildWorker) => (started.push(child), child);
}

const problemKinds = async (redis: ReturnType<typeof rawClient>, name: string) =>
  (await getQueueOverview(redis, 'bull', name)).problems.map((problem) => problem.kind);

describe.each(['oxmq', 'bullmq'] as const)('stalled-recently (checked by %s)', (checker) => {
  it('is reported once a killed worker’s job is found stalled, and not before', async () => {
    const name = uniqueQueueName(`stall-${checker}`);
    const redis = track(rawClient());
    const queue = track(new Queue(name, connection()));
    const spawned = children();
    const child = spawned(
      await startChildWorker({
        side: 'oxmq',
        queueName: name,
        port: redisOptions().port,
        lockDuration: 1_000,
        skipStalledCheck: true,
      }),
    );
    const job = await queue.add('x', {});
    await child.waitForMessage((m) => m.event === 'active' && m.jobId === job.id);
    expect(await problemKinds(redis, name)).not.toContain('stalled-recently');
    await child.kill();

    // The surviving worker's stalled checker finds the job once its lock expired.
    const opts = { ...connection(), stalledInterval: 300, lockDuration: 5_000 };
    const done = async () => 'done';
    if (checker === 'oxmq') track(new Worker(name, done, opts));
    else track(new BullWorker(name, done, opts));
    await waitFor(async () => (await queue.getJobState(job.id)) === 'completed', 15_000);

    const overview = await getQueueOverview(redis, 'bull', name);
    expect(overview.problems).toContainEqual({
      kind: 'stalled-recently',
      severity: 'warning',
      message:
        '1 job stalled in the last 15 min: a worker lost their locks (killed, or its event ' +
        'loop blocked) and they went back to wait.',
    });
    // Outside the window (the read is bounded by stream id time) it is not reported.
    const later = Date.now() + 16 * 60_000;
    expect(await recentStalls(redis, new QueueKeys('bull', name), later)).toEqual({
      count: 0,
      capped: false,
    });
  });
});

describe('workers-missing-heartbeats', () => {
  it('reports an OxMQ worker killed without closing, not one that closed', async () => {
    const name = uniqueQueueName('hb-missing');
    const redis = track(rawClient());
    track(new Queue(name, connection()));
    const heartbeatInterval = 100;
    // A live worker keeps beating (and pruning the index) the whole time.
    track(new Worker(name, async () => 1, { ...connection(), heartbeatInterval }));
    const closing = new Worker(name, async () => 1, { ...connection(), heartbeatInterval });
    const spawned = children();
    const child = spawned(
      await startChildWorker({
        side: 'oxmq',
        queueName: name,
        port: redisOptions().port,
        heartbeatInterval,
      }),
    );
    const keys = new QueueKeys('bull', name);
    await waitFor(async () => (await redis.zcard(`bull:${name}:oxmq:workers`)) === 3);
    expect(await problemKinds(redis, name)).not.toContain('workers-missing-heartbeats');

    await closing.close();
    await child.kill();
    const missing = await waitFor(async () => {
      const list = await missingWorkers(redis, keys, Date.now());
      return list.length > 0 && list.every((worker) => worker.expired) ? list : undefined;
    });
    // Only the killed one: close() takes a worker out of the index.
    expect(missing).toHaveLength(1);
    const overview = await getQueueOverview(redis, 'bull', name);
    expect(overview.problems).toContainEqual({
      kind: 'workers-missing-heartbeats',
      severity: 'warning',
      message:
        '1 OxMQ worker stopped sending heartbeats in the last 15 min without closing ' +
        '(killed, its machine gone, or its event loop blocked).',
    });
    // Still reported after several beats of the live worker, which prunes only older entries.
    await new Promise((resolve) => setTimeout(resolve, 5 * heartbeatInterval));
    expect(await problemKinds(redis, name)).toContain('workers-missing-heartbeats');
  });

  it('reports a worker whose last beat is older than two of its intervals before it expires', async () => {
    const name = uniqueQueueName('hb-late');
    const redis = track(rawClient());
    const keys = new QueueKeys('bull', name);
    const now = Date.now();
    // A record as a worker with a 10 s interval wrote it 25 s ago: late, not yet expired (30 s).
    await redis
      .multi()
      .hset(`bull:${name}:oxmq:worker:w1`, {
        id: 'w1',
        interval: '10000',
        lastHeartbeat: String(now - 25_000),
      })
      .pexpire(`bull:${name}:oxmq:worker:w1`, 5_000)
      .zadd(`bull:${name}:oxmq:workers`, now - 25_000, 'w1')
      .hset(`bull:${name}:oxmq:worker:w2`, {
        id: 'w2',
        interval: '10000',
        lastHeartbeat: String(now - 15_000),
      })
      .pexpire(`bull:${name}:oxmq:worker:w2`, 15_000)
      .zadd(`bull:${name}:oxmq:workers`, now - 15_000, 'w2')
      .exec();
    track({
      close: () =>
        redis.del(
          `bull:${name}:oxmq:worker:w1`,
          `bull:${name}:oxmq:worker:w2`,
          `bull:${name}:oxmq:workers`,
        ),
    });
    expect(await missingWorkers(redis, keys, now)).toEqual([
      { id: 'w1', lastHeartbeat: now - 25_000, expired: false },
    ]);
  });
});
