/**
 * Failover under load, on real deployments (test/helpers/redis-sentinel.ts, redis-cluster.ts):
 * a producer adds jobs with `durable` (WAIT for one replica), a Worker processes them and a
 * QueueEvents listens, while the master of the queue fails over. Every add the producer saw
 * acknowledged by a replica ends completed, the worker and QueueEvents carry on with the new
 * master, and the producer's retries of adds that failed during the switch (same custom ids)
 * create no second job (docs/scaling.md).
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker, type ConnectionOptions, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { startRedisSentinel, type RedisSentinelDeployment } from '../helpers/redis-sentinel';
import { sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const JOBS = 120;
const DURABLE = { replicas: 1, timeoutMs: 2_000 };

interface LoadRun {
  /** Ids whose add resolved with a replica's confirmation. */
  acknowledged: string[];
  /** Adds that failed (and were retried) while the master switched. */
  retriedAdds: number;
}

/**
 * Adds JOBS jobs one at a time with custom ids, retrying an add that fails until it succeeds
 * (as a producer that must not drop work would); calls `midway` once, after a third of them.
 */
async function produce(queue: Queue, midway: () => Promise<unknown>): Promise<LoadRun> {
  const run: LoadRun = { acknowledged: [], retriedAdds: 0 };
  let switching: Promise<unknown> | undefined;
  for (let i = 0; i < JOBS; i++) {
    if (i === Math.floor(JOBS / 3)) switching = midway();
    for (;;) {
      try {
        const job = await queue.add('work', { i }, { jobId: `job-${i}`, durable: DURABLE });
        if (job.durability!.confirmed >= 1) run.acknowledged.push(job.id!);
        break;
      } catch {
        run.retriedAdds++;
        await sleep(100);
      }
    }
  }
  await switching;
  return run;
}

/** Runs the load against `connection()` while `failover` happens; checks nothing was lost. */
async function rideThrough(
  name: string,
  connection: () => ConnectionOptions,
  failover: () => Promise<unknown>,
  queueOptions: { clusterHashTags?: boolean } = {},
): Promise<void> {
  const completed = new Set<string>();
  const heard = new Set<string>();
  const events = track(new QueueEvents(name, { connection: connection(), ...queueOptions }));
  await events.waitUntilReady();
  events.on('completed', ({ jobId }) => heard.add(jobId));
  const worker = track(
    new Worker(name, async (job: Job) => job.data as unknown, {
      connection: connection(),
      concurrency: 4,
      runRetryDelay: 200,
      ...queueOptions,
    }),
  );
  worker.on('completed', (job) => completed.add(job.id!));
  worker.on('error', () => undefined);
  events.on('error', () => undefined);
  const queue = track(new Queue(name, { connection: connection(), ...queueOptions }));
  queue.on('error', () => undefined);

  const run = await produce(queue, failover);
  // Most adds are confirmed by the replica; the ones in the switch may not be.
  expect(run.acknowledged.length).toBeGreaterThan(JOBS / 2);
  await waitFor(() => run.acknowledged.every((id) => completed.has(id)), 30_000);
  // No job was created twice by a retried add: one hash per id, and none beyond JOBS.
  await waitFor(async () => (await queue.getJobCounts('completed')).completed === JOBS, 30_000);
  expect(await queue.count()).toBe(0);
  // QueueEvents followed the new master: it heard completions of jobs added after the switch.
  await waitFor(() => heard.has(`job-${JOBS - 1}`), 30_000);
}

describe('a Sentinel failover under load', () => {
  let deployment: RedisSentinelDeployment | undefined;
  beforeAll(async () => {
    deployment = await startRedisSentinel();
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  it('loses no acknowledged job; worker and QueueEvents follow the new master', async () => {
    const before = await deployment!.master();
    const connection = () => ({
      sentinels: deployment!.sentinels,
      name: deployment!.masterName,
      maxRetriesPerRequest: null,
    });
    await rideThrough(uniqueQueueName('sentinel-failover'), connection, () =>
      deployment!.failover(),
    );
    expect((await deployment!.master()).port).not.toBe(before.port);
  }, 90_000);
});

describe('a Redis Cluster failover under load', () => {
  let deployment: RedisCluster | undefined;
  beforeAll(async () => {
    deployment = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  it('loses no acknowledged job; worker and QueueEvents follow the promoted replica', async () => {
    const name = uniqueQueueName('cluster-failover');
    const connection = () =>
      track(new Cluster(deployment!.nodes, { redisOptions: { maxRetriesPerRequest: null } }));
    // The master that holds the queue's slot is the one to fail over.
    const keys = new Queue(name, { connection: connection(), clusterHashTags: true }).keys;
    const admin = connection();
    const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', keys.meta));
    const ranges = (await admin.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const holder = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    expect(holder).toBeDefined();
    await rideThrough(name, connection, () => deployment!.failover(holder!), {
      clusterHashTags: true,
    });
    expect((await deployment!.masters()).map((m) => m.port)).not.toContain(holder);
  }, 90_000);
});
