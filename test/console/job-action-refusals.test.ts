/**
 * Job actions refused for the job's state answer 409 with a message for a person: what the job
 * is doing and what to do instead, never the engine's internal wording. That holds when the page
 * offered the action on a state the job has since left (the race a stale page runs into).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { ApiError } from '../../lib/api-types';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN, OPERATOR } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('job-refusals');
const jobPath = (id: string) => `/api/queues/bull/${name}/jobs/${id}`;
const INTERNAL = /changeDelay|expected state|locked by another worker|Missing key/;
let queue: Queue;
let worker: Worker | undefined;
let release: () => void = () => undefined;
let admin: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  [admin, operator] = await Promise.all([signIn(baseUrl, ADMIN), signIn(baseUrl, OPERATOR)]);
});

afterAll(async () => {
  release();
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
});

async function refusal(response: Response): Promise<string> {
  const body = (await response.json()) as ApiError;
  expect(response.status, JSON.stringify(body)).toBe(409);
  expect(body.code).toBe('CONFLICT');
  expect(body.message).not.toMatch(INTERNAL);
  return body.message;
}

describe('refusals in words', () => {
  it('Set delay on a waiting job', async () => {
    const job = await queue.add('w', {});
    const message = await refusal(await operator.post(`${jobPath(job.id)}/delay`, { delay: 500 }));
    expect(message).toBe(
      `Job ${job.id} is waiting for a worker: only a delayed job has a delay to change. To hold it back, pause the queue, or remove it and add it again with a delay.`,
    );
  });

  it('Set delay after the job was promoted meanwhile', async () => {
    const job = await queue.add('d', {}, { delay: 600_000 });
    // The page read it delayed and offered Set delay; then someone promoted it.
    await job.promote();
    const message = await refusal(await operator.post(`${jobPath(job.id)}/delay`, { delay: 500 }));
    expect(message).toMatch(new RegExp(`^Job ${job.id} is waiting for a worker: `));
  });

  it('Remove on a running job', async () => {
    const released = new Promise<void>((resolve) => (release = resolve));
    // The jobs of the tests above wait too: enough slots that this one runs at once.
    worker = new Worker(name, () => released, { connection: redisOptions(), concurrency: 10 });
    const job = await queue.add('busy', {});
    await waitFor(async () => (await queue.getJobState(job.id)) === 'active');
    const message = await refusal(await admin.post(`${jobPath(job.id)}/remove`, {}));
    expect(message).toBe(
      `Job ${job.id} is running on a worker: its worker holds it locked, so it cannot be removed while it runs. Cancel it, or wait until it finishes, then remove it.`,
    );
    expect(await queue.getJobState(job.id)).toBe('active');
  });
});
