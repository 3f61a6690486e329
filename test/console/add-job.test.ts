/**
 * Adding a job from the console (POST /api/queues/:prefix/:name/jobs) against `next start` and a
 * real Redis: the job lands exactly as Queue.add writes it, options included; roles, input
 * validation and unserved prefixes are refused before anything is written.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { OPERATOR, VIEWER } from './users';
import type { ApiError, JobActionResponse } from '../../lib/api-types';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('addjob');
// Created in beforeAll, after the test records that the queue did not exist (a Queue writes meta).
let queue: Queue;
let metaBefore: number;
const jobsPath = `/api/queues/bull/${name}/jobs`;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  metaBefore = await redis.exists(`bull:${name}:meta`);
  queue = new Queue(name, { connection: redisOptions() });
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

describe('adding a job', () => {
  it('adds a job to a queue that does not exist yet, with its data and options', async () => {
    expect(metaBefore).toBe(0);
    expect(await redis.exists(`bull:${name}:id`)).toBe(0);
    const response = await operator.post(jobsPath, {
      name: 'send-invoice',
      data: { invoice: 42, lines: ['a', 'b'] },
      opts: { delay: 60_000, attempts: 3, backoff: { type: 'exponential', delay: 500 } },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const { id } = (await response.json()) as JobActionResponse;
    expect(id).toBeTruthy();

    const job = await queue.getJob(id!);
    expect(job).toBeDefined();
    expect(job!.name).toBe('send-invoice');
    expect(job!.data).toEqual({ invoice: 42, lines: ['a', 'b'] });
    expect(job!.opts).toMatchObject({
      delay: 60_000,
      attempts: 3,
      backoff: { type: 'exponential', delay: 500 },
    });
    expect(await queue.getJobState(id!)).toBe('delayed');
  });

  it('keeps custom job ids unique, as Queue.add does', async () => {
    const body = { name: 'once', data: {}, opts: { jobId: 'order-7' } };
    const first = (await (await operator.post(jobsPath, body)).json()) as JobActionResponse;
    const second = (await (await operator.post(jobsPath, body)).json()) as JobActionResponse;
    expect(first.id).toBe('order-7');
    expect(second.id).toBe('order-7');
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });

  it('refuses viewers, bad input and unserved prefixes without writing anything', async () => {
    const keysBefore = (await redis.keys(`bull:${name}:*`)).sort();
    expect((await viewer.post(jobsPath, { name: 'x' })).status).toBe(403);

    const unknownOption = await operator.post(jobsPath, { name: 'x', opts: { repeat: {} } });
    expect(unknownOption.status).toBe(422);
    expect(((await unknownOption.json()) as ApiError).code).toBe('INVALID_INPUT');

    const colonId = await operator.post(jobsPath, { name: 'x', opts: { jobId: 'a:b' } });
    expect(colonId.status).toBe(422);
    expect((await operator.post(jobsPath, { name: '' })).status).toBe(422);
    expect((await operator.post(jobsPath, { name: 'x', opts: { delay: -1 } })).status).toBe(422);

    const otherPrefix = await operator.post(`/api/queues/nope/${name}/jobs`, { name: 'x' });
    expect(otherPrefix.status).toBe(404);
    expect(await redis.keys('nope:*')).toEqual([]);
    expect((await redis.keys(`bull:${name}:*`)).sort()).toEqual(keysBefore);
  });
});
