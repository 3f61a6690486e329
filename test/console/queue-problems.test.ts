/**
 * The overview's problems over HTTP (GET /api/queues) against `next start` and a real Redis:
 * waiting jobs without a worker, a paused queue, an old backlog, a queue whose worker is
 * connected; and the failed list read newest first.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { VIEWER } from './users';
import type { JobListResponse, QueueListResponse, QueueOverview } from '../../lib/api-types';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const names = {
  idle: uniqueQueueName('prob-idle'),
  paused: uniqueQueueName('prob-paused'),
  old: uniqueQueueName('prob-old'),
  served: uniqueQueueName('prob-served'),
  failed: uniqueQueueName('prob-failed'),
};
const queues = Object.fromEntries(
  Object.entries(names).map(([key, name]) => [
    key,
    new Queue(name, { connection: redisOptions() }),
  ]),
) as Record<keyof typeof names, Queue>;
const OLD_TIMESTAMP = Date.now() - 30 * 60_000;
let release: () => void = () => undefined;
let worker: Worker;
let viewer: ConsoleClient;

beforeAll(async () => {
  await queues.idle.add('job', {});
  await queues.paused.pause();
  await queues.paused.add('job', {});
  const old = await queues.old.add('job', {});
  // As if the job had been added half an hour ago: the field bullmq's add writes.
  await redis.hset(`bull:${names.old}:${old.id}`, 'timestamp', String(OLD_TIMESTAMP));
  await queues.old.add('fresh', {});

  // A worker busy with one job while two more wait: connected, so no "no worker".
  const busy = new Promise<void>((resolve) => {
    release = resolve;
  });
  worker = new Worker(names.served, () => busy, { connection: redisOptions(), concurrency: 1 });
  await queues.served.addBulk([1, 2, 3].map((n) => ({ name: 'job', data: { n } })));
  await waitFor(async () => (await queues.served.getJobCounts('active')).active === 1);

  viewer = await signIn(baseUrl, VIEWER);
});

afterAll(async () => {
  release();
  await worker?.close();
  await Promise.all(Object.values(queues).map((queue) => queue.obliterate({ force: true })));
  await Promise.all(Object.values(queues).map((queue) => queue.close()));
  await redis.quit();
});

/** Our queues from every page of the list (other test files add queues to the same Redis). */
async function listed(): Promise<Map<string, QueueOverview>> {
  const found = new Map<string, QueueOverview>();
  for (let page = 1; ; page++) {
    const response = await viewer.get(`/api/queues?page=${page}&pageSize=100`);
    expect(response.status).toBe(200);
    const list = (await response.json()) as QueueListResponse;
    for (const queue of list.queues) found.set(queue.name, queue);
    if (page * list.pageSize >= list.total) return found;
  }
}

const kinds = (queue: QueueOverview | undefined) => queue?.problems.map((p) => p.kind);

describe('GET /api/queues problems', () => {
  it('says what is wrong with each queue, with a severity and a sentence', async () => {
    const all = await listed();

    const idle = all.get(names.idle);
    expect(kinds(idle)).toEqual(['no-worker']);
    expect(idle?.problems[0]).toEqual({
      kind: 'no-worker',
      severity: 'critical',
      message: '1 job waits but no worker is connected.',
    });

    expect(kinds(all.get(names.paused))).toEqual(['no-worker', 'paused']);
    expect(all.get(names.paused)?.problems[1]?.severity).toBe('info');

    const old = all.get(names.old);
    expect(kinds(old)).toEqual(['no-worker', 'old-backlog']);
    expect(old?.oldestWaitingAt).toBe(OLD_TIMESTAMP);
    expect(old?.problems[1]?.message).toMatch(/^The oldest waiting job was added 3\d min ago/);

    const served = all.get(names.served);
    expect(served?.counts.waiting).toBe(2);
    expect(served?.workers).toHaveLength(1);
    expect(kinds(served)).toEqual([]);
    expect(served?.oldestWaitingAt).toBeGreaterThan(Date.now() - 60_000);
  });

  it('answers the same problems for one queue', async () => {
    const response = await viewer.get(`/api/queues/bull/${names.paused}`);
    expect(response.status).toBe(200);
    expect(kinds((await response.json()) as QueueOverview)).toEqual(['no-worker', 'paused']);
  });
});

describe('GET /api/queues/:prefix/:name/jobs?state=failed', () => {
  it('lists failed jobs newest first (by finishedOn, descending)', async () => {
    const failing = new Worker(
      names.failed,
      async () => {
        throw new Error('nope');
      },
      { connection: redisOptions() },
    );
    const jobs = await queues.failed.addBulk(
      [0, 1, 2, 3].map((n) => ({ name: 'job', data: { n } })),
    );
    await waitFor(async () => (await queues.failed.getJobCounts('failed')).failed === 4);
    await failing.close();
    // Distinct finish times in an order unlike the ids': job 2 newest, job 1 oldest.
    const finishedOn = [3_000, 1_000, 4_000, 2_000].map((ms) => Date.now() - 60_000 + ms);
    for (const [index, job] of jobs.entries()) {
      await redis.hset(`bull:${names.failed}:${job.id}`, 'finishedOn', String(finishedOn[index]));
      await redis.zadd(`bull:${names.failed}:failed`, finishedOn[index]!, job.id!);
    }

    const response = await viewer.get(
      `/api/queues/bull/${names.failed}/jobs?state=failed&page=1&pageSize=10`,
    );
    expect(response.status).toBe(200);
    const page = (await response.json()) as JobListResponse;
    expect(page.jobs.map((job) => job.id)).toEqual([2, 0, 3, 1].map((index) => jobs[index]!.id));
    const times = page.jobs.map((job) => job.finishedOn ?? 0);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});
