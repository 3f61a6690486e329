/**
 * What one poll of the queue list costs Redis: the connected workers of every queue on the page
 * come from ONE CLIENT LIST, not one per queue (every open tab polls this every few seconds).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { QueueListResponse } from '../../lib/api-types';
import { commandCalls } from '../helpers/command-stats';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const names = [1, 2, 3, 4].map(() => uniqueQueueName('listcost'));
const queues = names.map((name) => new Queue(name, { connection: redisOptions() }));
let worker: Worker;
let viewer: ConsoleClient;

beforeAll(async () => {
  await Promise.all(queues.map((queue) => queue.waitUntilReady()));
  worker = new Worker(names[0]!, async () => 1, { connection: redisOptions(), name: 'lister' });
  await worker.waitUntilReady();
  viewer = await signIn(baseUrl, VIEWER);
});

afterAll(async () => {
  await worker.close();
  await Promise.all(queues.map((queue) => queue.obliterate({ force: true })));
  await Promise.all(queues.map((queue) => queue.close()));
  await redis.quit();
});

describe('GET /api/queues', () => {
  it('reads the workers of a whole page with one CLIENT LIST', async () => {
    const before = (await commandCalls(redis))['client|list'] ?? 0;
    const response = await viewer.get('/api/queues?pageSize=100');
    expect(response.status).toBe(200);
    const after = (await commandCalls(redis))['client|list'] ?? 0;
    const list = (await response.json()) as QueueListResponse;
    const ours = list.queues.filter((queue) => names.includes(queue.name));
    expect(ours).toHaveLength(4);
    expect(list.queues.length).toBeGreaterThan(1);
    expect(after - before).toBe(1);
    // The one read still finds each queue's own workers.
    const served = ours.find((queue) => queue.name === names[0])!;
    expect(served.workers.map((w) => w.workerName)).toEqual(['lister']);
    expect(ours.filter((queue) => queue.workers.length > 0)).toHaveLength(1);
  });
});
