/**
 * The limits route says where each limit comes from: a worker's own `limiter` (from its
 * heartbeat) next to the queue-wide setting, and what fetches apply when both exist. A half
 * rate limit is refused with a reason, not dropped.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { ApiError, QueueLimits } from '../../lib/api-types';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('limit-src');
const base = `/api/queues/bull/${name}`;
let queue: Queue;
let worker: Worker;
let viewer: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.add('one', {});
  worker = new Worker(name, async () => 'ok', {
    connection: redisOptions(),
    limiter: { max: 2, duration: 1000 },
    concurrency: 3,
    heartbeatInterval: 100,
  });
  [viewer, operator] = await Promise.all([signIn(baseUrl, VIEWER), signIn(baseUrl, OPERATOR)]);
});

afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

async function limits(): Promise<QueueLimits> {
  const response = await viewer.get(`${base}/limits`);
  expect(response.status).toBe(200);
  return (await response.json()) as QueueLimits;
}

describe('limit sources', () => {
  it("reports the workers' own limiter and concurrency apart from the queue-wide settings", async () => {
    const read = await waitFor(async () => {
      const answer = await limits();
      return answer.workerLimits.reporting === 1 ? answer : undefined;
    });
    expect(read).toMatchObject({
      rateLimit: null,
      globalConcurrency: null,
      workerLimits: {
        reporting: 1,
        limiters: [{ max: 2, duration: 1000, workers: 1 }],
        withoutLimiter: 0,
        concurrency: 3,
      },
      rateLimitsInForce: [{ max: 2, duration: 1000, from: 'workers', workers: 1 }],
    });
  });

  it('the form sets the queue-wide limit; in force takes its max within the workers window', async () => {
    const response = await operator.post(`${base}/limits`, {
      rateLimit: { max: 10, duration: 60_000 },
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as QueueLimits;
    expect(answer.rateLimit).toEqual({ max: 10, duration: 60_000 });
    expect(answer.rateLimitsInForce).toContainEqual({
      max: 10,
      duration: 1000,
      from: 'both',
      workers: 1,
    });
    await operator.post(`${base}/limits`, { rateLimit: null });
  });

  it('refuses half a rate limit with a reason, and changes nothing', async () => {
    for (const [half, missing] of [
      [{ max: 5 }, 'duration'],
      [{ duration: 1000 }, 'max'],
    ] as const) {
      const response = await operator.post(`${base}/limits`, { rateLimit: half });
      expect(response.status).toBe(422);
      const error = (await response.json()) as ApiError;
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toContain(`body.rateLimit.${missing}`);
      expect(error.message).toMatch(/needs both max and duration/);
    }
    expect((await limits()).rateLimit).toBeNull();
  });
});
