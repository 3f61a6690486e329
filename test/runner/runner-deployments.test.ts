/**
 * The real runner process against replicated deployments, configured the way an operator would:
 * REDIS_CLUSTER_NODES with OXMQ_CLUSTER_HASH_TAGS against a local Redis Cluster, and
 * REDIS_SENTINELS + REDIS_SENTINEL_NAME against a local Sentinel group
 * (docs/testing-deployments.md).
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type ConnectionOptions } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { startRedisSentinel, type RedisSentinelDeployment } from '../helpers/redis-sentinel';
import { waitFor } from '../helpers/redis';
import { fixture, useRunners, type RunnerProcess } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

const list = (nodes: readonly { host: string; port: number }[]) =>
  nodes.map(({ host, port }) => `${host}:${port}`).join(',');

async function completedValue(queue: Queue, id: string): Promise<unknown> {
  return waitFor(async () => {
    const job = await queue.getJob(id);
    return job?.finishedOn && job.failedReason === undefined ? { value: job.returnvalue } : null;
  }, 20_000).then((done) => done?.value);
}

/** Adds a job to each of the runner's two fixture queues and checks the runner processed both. */
async function processesBoth(
  runner: RunnerProcess,
  connection: () => ConnectionOptions,
  tags: boolean,
) {
  await runner.ready(30_000);
  const alpha = track(
    new Queue('alpha', { connection: connection(), prefix: runner.prefix, clusterHashTags: tags }),
  );
  const beta = track(
    new Queue('beta', { connection: connection(), prefix: runner.prefix, clusterHashTags: tags }),
  );
  const a = await alpha.add('echo', { text: 'over the deployment' });
  const b = await beta.add('double', { n: 4 });
  expect(await completedValue(alpha, a.id)).toEqual({
    queue: 'alpha',
    echoed: 'over the deployment',
    pid: runner.pid,
  });
  expect(await completedValue(beta, b.id)).toEqual({ queue: 'beta', doubled: 8 });
  const ready = await runner.get('/readyz');
  expect(ready.status).toBe(200);
  return { alpha, beta };
}

describe('worker runner on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('processes jobs of hash-tagged queues, with no REDIS_URL', async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts'), 'beta.ts': fixture('beta.ts') },
      env: {
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: list(cluster!.nodes.slice(0, 2)),
        OXMQ_CLUSTER_HASH_TAGS: 'true',
      },
    });
    const { alpha } = await processesBoth(
      runner,
      () => track(new Cluster(cluster!.nodes, { redisOptions: { maxRetriesPerRequest: null } })),
      true,
    );
    expect(alpha.name).toBe('{alpha}');
    expect(runner.logs).toContainEqual(
      expect.objectContaining({
        msg: 'runner starting',
        redis: `cluster ${list(cluster!.nodes.slice(0, 2))}`,
        clusterHashTags: true,
      }),
    );
  });

  it('refuses untagged queues on the cluster without OXMQ_CLUSTER_HASH_TAGS, naming the cause', async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { REDIS_URL: '', REDIS_CLUSTER_NODES: list(cluster!.nodes) },
    });
    const failed = await runner.waitForLog(
      (line) => line.msg === 'processor module failed to load',
    );
    expect(failed).toMatchObject({ code: 'WORKER_FAILED' });
    expect(String(failed.reason)).toMatch(/clusterHashTags/);
  });
});

describe('worker runner behind Sentinel (REDIS_SENTINELS)', () => {
  let deployment: RedisSentinelDeployment | undefined;
  beforeAll(async () => {
    deployment = await startRedisSentinel();
  }, 60_000);
  afterAll(async () => {
    await deployment?.stop();
  });

  it("processes jobs on the sentinels' master", async () => {
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts'), 'beta.ts': fixture('beta.ts') },
      env: {
        REDIS_URL: '',
        REDIS_SENTINELS: list(deployment!.sentinels),
        REDIS_SENTINEL_NAME: deployment!.masterName,
      },
    });
    await processesBoth(
      runner,
      () => ({ sentinels: [...deployment!.sentinels], name: deployment!.masterName }),
      false,
    );
    // The jobs are on the master the sentinels name, not on some default server.
    const master = await deployment!.master();
    const probe = track(new Queue('alpha', { connection: { ...master }, prefix: runner.prefix }));
    expect(await probe.getJobCounts('completed')).toEqual({ completed: 1 });
  });
});
