/**
 * Engine refusals through the console: whatever route meets one answers its status from the one
 * table (lib/server/engine-errors.ts), not a 500. Obliterating a queue that has a running job
 * without `force` is a conflict (409, with the engine's reason), and nothing is deleted.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { ApiError } from '../../lib/api-types';
import { cancellableProcessor } from '../helpers/cancellable-processor';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('refusals');
const started = new Set<string>();
const redis = rawClient();
let queue: Queue;
let worker: Worker;
let admin: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  worker = new Worker(name, cancellableProcessor(started), { connection: redisOptions() });
  admin = await signIn(baseUrl, ADMIN);
});

afterAll(async () => {
  await worker.close(true);
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

describe('engine refusals', () => {
  it('answers 409 for obliterating a queue with a running job, and deletes nothing', async () => {
    const job = await queue.add('long', {});
    await waitFor(() => started.has(job.id));
    const response = await admin.post(`/api/queues/bull/${name}/obliterate`, { confirm: name });
    expect(response.status).toBe(409);
    const body = (await response.json()) as ApiError;
    expect(body).toMatchObject({ code: 'CONFLICT' });
    expect(body.message).toMatch(/active jobs/);
    expect(await redis.exists(`bull:${name}:meta`, `bull:${name}:${job.id}`)).toBe(2);
  });
});
