/**
 * The Workers page's merged rows and the overview's new parts over HTTP, against `next start`:
 * GET /api/workers (an OxMQ worker's heartbeat merged with its connection, a bullmq worker
 * without one, quiet from an operator), GET /api/queues reporting a worker killed without
 * closing, and a console of its own (its own prefix) for GET /api/metrics/total and
 * OXMQ_OLD_BACKLOG_MINUTES.
 */
import { randomUUID } from 'node:crypto';
import { Worker as BullWorker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type {
  QueueListResponse,
  TotalThroughputResponse,
  WorkersResponse,
} from '../../lib/api-types';
import { startChildWorker, type ChildWorker } from '../helpers/child-worker';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv, OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('workers-merged');
let queue: Queue;
let oxmq: Worker;
let bull: BullWorker;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  oxmq = new Worker(name, async () => 'ok', {
    connection: redisOptions(),
    name: 'ox-row',
    concurrency: 3,
    heartbeatInterval: 100,
  });
  bull = new BullWorker(name, async () => 'ok', { connection: redisOptions(), name: 'bull-row' });
  await Promise.all([oxmq.waitUntilReady(), bull.waitUntilReady()]);
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await Promise.all([oxmq.close(), bull.close()]);
  await queue.obliterate({ force: true });
  await queue.close();
});

async function ourRoster() {
  for (let page = 1; ; page++) {
    const response = await viewer.get(`/api/workers?page=${page}&pageSize=200`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as WorkersResponse;
    const found = body.queues.find((q) => q.prefix === 'bull' && q.name === name);
    if (found) return found;
    if (page * body.pageSize >= body.total) throw new Error(`${name} not listed`);
  }
}

describe('GET /api/workers rows', () => {
  it('merges the OxMQ worker with its connection; the bullmq worker has no heartbeat', async () => {
    const roster = await waitFor(async () => {
      const found = await ourRoster();
      const row = found.rows.find((r) => r.kind === 'oxmq');
      return row && row.connections.length === 1 && found.rows.length === 2 ? found : undefined;
    });
    const ox = roster!.rows.find((row) => row.kind === 'oxmq')!;
    expect(ox).toMatchObject({
      workerName: 'ox-row',
      matchedBy: 'address',
      heartbeat: { id: oxmq.id, concurrency: 3, pid: process.pid, quiet: false },
    });
    expect(ox.connections[0]!.rawname).toMatch(/:w:ox-row$/);
    const other = roster!.rows.find((row) => row.kind === 'no-heartbeat')!;
    expect(other.workerName).toBe('bull-row');
    expect(other.heartbeat).toBeUndefined();
    expect(roster!.heartbeatTotal).toBe(1);
  });

  it('an operator quiets the OxMQ row through the queue’s worker route; a viewer may not', async () => {
    const path = `/api/queues/bull/${name}/workers/${oxmq.id}`;
    expect((await viewer.post(`${path}/quiet`, {})).status).toBe(403);
    expect((await operator.post(`${path}/quiet`, {})).status).toBe(200);
    await waitFor(
      async () => (await ourRoster()).rows.find((r) => r.kind === 'oxmq')?.heartbeat?.quiet,
    );
    expect((await operator.post(`${path}/resume`, {})).status).toBe(200);
    await waitFor(
      async () =>
        (await ourRoster()).rows.find((r) => r.kind === 'oxmq')?.heartbeat?.quiet === false,
    );
  });
});

describe('GET /api/queues: workers-missing-heartbeats', () => {
  it('is reported for an OxMQ worker killed without closing', async () => {
    const lost = uniqueQueueName('workers-lost');
    const lostQueue = new Queue(lost, { connection: redisOptions() });
    let child: ChildWorker | undefined;
    try {
      await lostQueue.waitUntilReady();
      child = await startChildWorker({
        side: 'oxmq',
        queueName: lost,
        port: redisOptions().port,
        heartbeatInterval: 100,
      });
      const redis = rawClient();
      await waitFor(async () => (await redis.zcard(`bull:${lost}:oxmq:workers`)) === 1);
      await redis.quit();
      await child.kill();
      const problem = await waitFor(async () => {
        for (let page = 1; ; page++) {
          const body = (await (
            await viewer.get(`/api/queues?page=${page}&pageSize=100`)
          ).json()) as QueueListResponse;
          const ours = body.queues.find((q) => q.name === lost);
          if (ours) return ours.problems.find((p) => p.kind === 'workers-missing-heartbeats');
          if (page * body.pageSize >= body.total) return undefined;
        }
      });
      expect(problem).toMatchObject({ severity: 'warning' });
      expect(problem!.message).toMatch(/^1 OxMQ worker stopped sending heartbeats/);
    } finally {
      await child?.kill();
      await lostQueue.obliterate({ force: true });
      await lostQueue.close();
    }
  });
});

describe('a console with its own prefix and OXMQ_OLD_BACKLOG_MINUTES=2', () => {
  const prefix = `tp-${randomUUID().slice(0, 8)}`;
  let server: ConsoleServer;
  let own: ConsoleClient;
  const queues: Queue[] = [];
  let metricsWorker: Worker;

  beforeAll(async () => {
    server = await startConsole(
      consoleEnv(inject('redisPort'), { OXMQ_PREFIXES: prefix, OXMQ_OLD_BACKLOG_MINUTES: '2' }),
    );
    const make = (queueName: string) => {
      const made = new Queue(queueName, { connection: redisOptions(), prefix });
      queues.push(made);
      return made;
    };
    const counted = make('counted');
    make('uncounted');
    const old = make('old');
    const done: string[] = [];
    metricsWorker = new Worker(
      'counted',
      async (job) => {
        if (job.data.fail) throw new Error('no');
        return 1;
      },
      { connection: redisOptions(), prefix, metrics: { maxDataPoints: 60 } },
    );
    metricsWorker.on('completed', (job) => done.push(job.id!));
    metricsWorker.on('failed', (job) => done.push(job!.id!));
    await counted.addBulk([
      { name: 'a', data: {} },
      { name: 'b', data: {} },
      { name: 'c', data: { fail: true } },
    ]);
    await waitFor(() => done.length === 3);
    const redis = rawClient();
    const waiting = await old.add('old', {});
    // Added five minutes ago: over the 2-minute setting, under the default 10.
    await redis.hset(`${prefix}:old:${waiting.id}`, 'timestamp', String(Date.now() - 5 * 60_000));
    await redis.quit();
    own = await signIn(server.url, VIEWER);
  });

  afterAll(async () => {
    await metricsWorker.close();
    await Promise.all(queues.map((q) => q.obliterate({ force: true }).then(() => q.close())));
    await server.stop();
  });

  it('GET /api/metrics/total sums the listed queues that keep metrics', async () => {
    const response = await own.get('/api/metrics/total?minutes=60');
    expect(response.status).toBe(200);
    const total = (await response.json()) as TotalThroughputResponse;
    expect(total).toMatchObject({ queues: 3, queuesWithMetrics: 1, minutes: 60 });
    const sum = (t: TotalThroughputResponse['completed']) =>
      t.pending + t.points.reduce((s, p) => s + p.count, 0);
    expect(sum(total.completed)).toBe(2);
    expect(sum(total.failed)).toBe(1);
    expect((await own.get('/api/metrics/total?minutes=zero')).status).toBe(422);
  });

  it('reports an old backlog past OXMQ_OLD_BACKLOG_MINUTES', async () => {
    const body = (await (await own.get('/api/queues')).json()) as QueueListResponse;
    const old = body.queues.find((q) => q.name === 'old')!;
    const backlog = old.problems.find((p) => p.kind === 'old-backlog');
    expect(backlog?.message).toBe('The oldest waiting job was added 5 min ago (over 2 min).');
  });
});
