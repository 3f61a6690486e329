/**
 * A console of its own (`next start`) configured with REDIS_CLUSTER_NODES against a local Redis
 * Cluster (test/helpers/redis-cluster.ts): GET /api/queues lists hash-tagged queues that sit on
 * several masters, with their counts and workers, and each queue's job reads through
 * GET /api/queues/:prefix/:name/jobs/:id. The admin reads behind it are tested in depth in
 * test/cluster/admin-on-cluster.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { Queue, Worker } from 'oxmq';
import type { JobDetailResponse, QueueListResponse } from '../../lib/api-types';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { waitFor } from '../helpers/redis';
import { signIn } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv, VIEWER } from './users';

const prefix = `ccl${Math.random().toString(36).slice(2, 8)}`;
const NAMES = ['north', 'south', 'east', 'west', 'up', 'down'];

let cluster: RedisCluster | undefined;
let server: ConsoleServer | undefined;
let connection: Cluster | undefined;
let queues: Queue[] = [];
let worker: Worker | undefined;

beforeAll(async () => {
  cluster = await startRedisCluster();
  const nodes = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
  server = await startConsole(
    consoleEnv(0, { REDIS_URL: '', REDIS_CLUSTER_NODES: nodes, OXMQ_PREFIXES: prefix }),
  );
  connection = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: null } });
  queues = NAMES.map(
    (name) => new Queue(name, { connection: connection!, prefix, clusterHashTags: true }),
  );
  for (const queue of queues) await queue.add('trip', { to: queue.name });
  worker = new Worker(NAMES[0]!, async () => 'arrived', {
    connection,
    prefix,
    clusterHashTags: true,
  });
  await waitFor(async () => (await queues[0]!.getJobCounts('completed')).completed === 1, 20_000);
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await Promise.all(queues.map((queue) => queue.close()));
  await connection?.quit().catch(() => undefined);
  await server?.stop();
  await cluster?.stop();
});

describe('the console on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  it('lists queues of several masters with counts and workers, and reads a job of each', async () => {
    const viewer = await signIn(server!.url, VIEWER);
    const response = await viewer.get('/api/queues?page=1&pageSize=100');
    expect(response.status).toBe(200);
    const list = (await response.json()) as QueueListResponse;
    expect(list.complete).toBe(true);
    expect(list.queues.map((queue) => queue.name).sort()).toEqual(
      NAMES.map((name) => `{${name}}`).sort(),
    );
    // Six tags over three masters: more than one master holds them (asked of the cluster).
    const slots = new Set(
      await Promise.all(
        NAMES.map((name) => connection!.cluster('KEYSLOT', `{${name}}`) as Promise<number>),
      ),
    );
    const owners = new Set(
      [...slots].map((slot) => connection!.slots[slot]?.[0]).filter((owner) => owner),
    );
    expect(owners.size).toBeGreaterThan(1);

    for (const overview of list.queues) {
      const served = overview.name === `{${NAMES[0]}}`;
      expect(overview.counts, overview.name).toMatchObject(
        served ? { completed: 1, waiting: 0 } : { completed: 0, waiting: 1 },
      );
      expect(overview.workers.length > 0, overview.name).toBe(served);
      const job = await viewer.get(
        `/api/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(overview.name)}/jobs/1`,
      );
      expect(job.status, overview.name).toBe(200);
      const detail = (await job.json()) as JobDetailResponse;
      expect(detail.data, overview.name).toEqual({ to: overview.name });
      expect(detail.state, overview.name).toBe(served ? 'completed' : 'waiting');
    }
  });

  it('stays healthy through the failover of a master, and reads that queue from its new master', async () => {
    const anonymousHealth = async () => (await fetch(`${server!.url}/api/health`)).status;
    expect(await anonymousHealth()).toBe(200);
    // Fail over the master of the served queue's slot.
    await cluster!.failover(await cluster!.masterOfKey(`{${NAMES[0]}}`));
    await waitFor(async () => (await anonymousHealth()) === 200, 20_000);
    const viewer = await signIn(server!.url, VIEWER);
    const name = encodeURIComponent(`{${NAMES[0]}}`);
    await waitFor(async () => {
      const job = await viewer.get(`/api/queues/${encodeURIComponent(prefix)}/${name}/jobs/1`);
      return job.status === 200 && ((await job.json()) as JobDetailResponse).state === 'completed';
    }, 20_000);
  });
});
