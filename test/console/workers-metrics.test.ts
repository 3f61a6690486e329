/**
 * The workers and metrics APIs against `next start`: workers come from client names (an OxMQ
 * worker named "w1", an unnamed bullmq worker, a QueueEvents reader that is not a worker), and
 * metrics are exactly what Queue.getMetrics reads, placed on minute timestamps.
 */
import { Worker as BullWorker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, QueueEvents, Worker } from 'oxmq';
import type {
  MetricsListResponse,
  QueueMetricsResponse,
  WorkersResponse,
} from '../../lib/api-types';
import { redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const workersQueue = uniqueQueueName('workers');
const idleQueue = uniqueQueueName('no-workers');
const metricsQueue = uniqueQueueName('metrics');
let viewer: ConsoleClient;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  viewer = await signIn(baseUrl, VIEWER);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

function track<T extends { close(): Promise<unknown> }>(thing: T): T {
  closers.push(() => thing.close());
  return thing;
}

describe('GET /api/workers', () => {
  it('needs a session', async () => {
    expect((await anonymousClient(baseUrl).get('/api/workers')).status).toBe(401);
  });

  it('lists an OxMQ worker named w1 and a bullmq worker, and no QueueEvents reader', async () => {
    const queue = track(new Queue(workersQueue, { connection: redisOptions() }));
    track(new Queue(idleQueue, { connection: redisOptions() }));
    const oxmq = track(
      new Worker(workersQueue, async () => 'ok', { connection: redisOptions(), name: 'w1' }),
    );
    const bull = track(
      new BullWorker(workersQueue, async () => 'ok', { connection: redisOptions() }),
    );
    const events = track(new QueueEvents(workersQueue, { connection: redisOptions() }));
    await Promise.all([oxmq.waitUntilReady(), bull.waitUntilReady(), events.waitUntilReady()]);
    const expected = await waitFor(async () => {
      const workers = await queue.getWorkers();
      return workers.length >= 2 ? workers : undefined;
    });

    const body = (await (await viewer.get('/api/workers')).json()) as WorkersResponse;
    expect(body.complete).toBe(true);
    const ours = body.queues.find((q) => q.name === workersQueue);
    expect(ours?.workers.map((w) => w.id).sort()).toEqual((expected ?? []).map((w) => w.id).sort());
    const named = ours?.workers.filter((w) => w.workerName === 'w1') ?? [];
    expect(named.length).toBeGreaterThanOrEqual(1);
    expect(named[0]).toMatchObject({ addr: expect.stringMatching(/:\d+$/) });
    expect(typeof named[0]?.age).toBe('number');
    expect(typeof named[0]?.idle).toBe('number');
    // The bullmq worker (no name option) is listed under the queue's bare client name.
    expect(ours?.workers.some((w) => w.workerName === undefined)).toBe(true);
    expect(ours?.workers.some((w) => w.rawname.endsWith(':qe'))).toBe(false);
    expect(body.queues.find((q) => q.name === idleQueue)?.workers).toEqual([]);
  });
});

describe('metrics', () => {
  it(
    'matches Queue.getMetrics, with closed minutes on the right timestamps',
    { timeout: 120_000 },
    async () => {
      const queue = track(new Queue(metricsQueue, { connection: redisOptions() }));
      const worker = track(
        new Worker(
          metricsQueue,
          async (job) => {
            if (job.name === 'fail') throw new Error('nope');
            return 'ok';
          },
          { connection: redisOptions(), metrics: { maxDataPoints: 60 } },
        ),
      );
      await worker.waitUntilReady();
      const finished = async (completed: number, failed: number) =>
        waitFor(async () => {
          const counts = await queue.getJobCounts('completed', 'failed');
          return counts.completed === completed && counts.failed === failed;
        });
      // Stay clear of a minute boundary for the first batch, so it lands in one minute.
      if (Date.now() % 60_000 > 50_000) await sleep(60_000 - (Date.now() % 60_000) + 200);
      const firstMinute = Math.floor(Date.now() / 60_000) * 60_000;
      await queue.addBulk([
        { name: 'ok', data: {} },
        { name: 'ok', data: {} },
        { name: 'ok', data: {} },
        { name: 'fail', data: {} },
      ]);
      await finished(3, 1);

      const pending = (await (
        await viewer.get(`/api/queues/bull/${metricsQueue}/metrics`)
      ).json()) as QueueMetricsResponse;
      expect(pending.completed).toMatchObject({ recorded: true, points: [], pending: 3, total: 3 });
      expect(pending.failed).toMatchObject({ recorded: true, pending: 1, total: 1 });
      expect(pending.completed.pendingSince).toBe(firstMinute);

      // Into the next minute: the next finish closes the first one.
      await sleep(firstMinute + 60_000 - Date.now() + 200);
      await queue.add('ok', {});
      await finished(4, 1);
      const closed = (await (
        await viewer.get(`/api/queues/bull/${metricsQueue}/metrics?minutes=30`)
      ).json()) as QueueMetricsResponse;
      const engine = await queue.getMetrics('completed', 0, 29);
      expect(closed.minutes).toBe(30);
      expect(closed.completed.points.map((p) => p.count)).toEqual([...engine.data].reverse());
      expect(closed.completed.points).toEqual([{ t: firstMinute, count: 3 }]);
      expect(closed.completed).toMatchObject({
        pending: 1,
        total: 4,
        pendingSince: firstMinute + 60_000,
      });

      const list = (await (
        await viewer.get('/api/metrics?pageSize=50')
      ).json()) as MetricsListResponse;
      expect(list.minutes).toBe(60);
      expect(list.queues.find((q) => q.name === metricsQueue)?.completed.total).toBe(4);
    },
  );

  it('says when nothing was recorded, clamps the window, 404s unknown queues', async () => {
    const quiet = (await (
      await viewer.get(`/api/queues/bull/${idleQueue}/metrics?minutes=99999`)
    ).json()) as QueueMetricsResponse;
    expect(quiet.minutes).toBe(1_440);
    expect(quiet.completed).toEqual({
      points: [],
      pending: 0,
      pendingSince: null,
      total: 0,
      recorded: false,
    });
    expect((await viewer.get('/api/queues/bull/nope-nope/metrics')).status).toBe(404);
    expect((await viewer.get(`/api/queues/bull/${idleQueue}/metrics?minutes=0`)).status).toBe(422);
  });
});
