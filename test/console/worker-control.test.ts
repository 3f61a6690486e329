/**
 * Live OxMQ workers through the console: their heartbeats listed per queue, quiet and resume by
 * an operator (a viewer is refused), and cancelling a running job through Redis with the answer
 * saying what the request reached.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type {
  ApiError,
  JobCancelResponse,
  JobCancelStateResponse,
  QueueHeartbeatsResponse,
  WorkerCommandResponse,
} from '../../lib/api-types';
import { cancellableProcessor } from '../helpers/cancellable-processor';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('worker-control');
const base = `/api/queues/bull/${name}`;
let queue: Queue;
let worker: Worker;
let operator: ConsoleClient;
let viewer: ConsoleClient;
const started = new Set<string>();

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  worker = new Worker(name, cancellableProcessor(started), {
    connection: redisOptions(),
    concurrency: 2,
    heartbeatInterval: 100,
  });
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await worker.close(true);
  await queue.obliterate({ force: true });
  await queue.close();
});

async function heartbeats(): Promise<QueueHeartbeatsResponse> {
  const response = await viewer.get(`${base}/workers`);
  expect(response.status).toBe(200);
  return (await response.json()) as QueueHeartbeatsResponse;
}

describe('live workers', () => {
  it('lists the queue’s OxMQ worker from its heartbeat', async () => {
    await waitFor(async () => (await heartbeats()).workers.length === 1);
    const [record] = (await heartbeats()).workers;
    expect(record).toMatchObject({ id: worker.id, concurrency: 2, quiet: false, pid: process.pid });
  });

  it('quiets and resumes a worker for an operator, not for a viewer', async () => {
    const refused = await viewer.post(`${base}/workers/${worker.id}/quiet`, {});
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ApiError).code).toBe('FORBIDDEN');

    const quieted = await operator.post(`${base}/workers/${worker.id}/quiet`, {});
    expect(quieted.status).toBe(200);
    expect((await quieted.json()) as WorkerCommandResponse).toEqual({
      ok: true,
      pendingUntilNextHeartbeat: true,
    });
    await waitFor(async () => (await heartbeats()).workers[0]?.quiet === true);
    // A quiet worker takes no new job: still waiting after three more of the worker's beats.
    const waiting = await queue.add('while-quiet', {});
    const beatAt = (await heartbeats()).workers[0]!.lastHeartbeat;
    await waitFor(async () => (await heartbeats()).workers[0]!.lastHeartbeat >= beatAt + 300);
    expect(await queue.getJobState(waiting.id)).toBe('waiting');

    const resumed = await operator.post(`${base}/workers/${worker.id}/resume`, {});
    expect(resumed.status).toBe(200);
    await waitFor(async () => started.has(waiting.id));
  });

  it('answers 404 for a worker id no live worker has', async () => {
    const response = await operator.post(
      `${base}/workers/00000000-0000-4000-8000-000000000000/quiet`,
      {},
    );
    expect(response.status).toBe(404);
  });
});

describe('cancelling a job from the console', () => {
  it('reaches the worker running it, which fails it with the reason', async () => {
    const job = await queue.add('long', {});
    await waitFor(async () => started.has(job.id));
    const response = await operator.post(`${base}/jobs/${job.id}/cancel`, { reason: 'stop it' });
    expect(response.status).toBe(200);
    expect((await response.json()) as JobCancelResponse).toEqual({ outcome: 'requested' });
    await waitFor(async () => (await queue.getJobState(job.id)) === 'failed');
    expect((await queue.getJob(job.id))?.failedReason).toBe('Cancelled: stop it');
  });

  it('shows a viewer where a request stands; refuses a force stop of an in-process processor', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // A processor of its own that ignores its signal, on a queue of its own.
    const ignoringName = uniqueQueueName('worker-control-ignoring');
    const ignoringBase = `/api/queues/bull/${ignoringName}`;
    const ignoringQueue = new Queue(ignoringName, { connection: redisOptions() });
    const running = new Set<string>();
    const ignoring = new Worker(
      ignoringName,
      async (job) => {
        running.add(job.id);
        await released;
      },
      { connection: redisOptions(), heartbeatInterval: 100 },
    );
    try {
      const job = await ignoringQueue.add('stubborn', {});
      await waitFor(async () => running.has(job.id));
      const before = await viewer.get(`${ignoringBase}/jobs/${job.id}/cancel`);
      expect((await before.json()) as JobCancelStateResponse).toMatchObject({
        request: null,
        canForce: false,
      });
      const asked = await operator.post(`${ignoringBase}/jobs/${job.id}/cancel`, {
        reason: 'token=abc123 please',
      });
      expect(((await asked.json()) as JobCancelResponse).outcome).toBe('requested');
      const state = (await (
        await viewer.get(`${ignoringBase}/jobs/${job.id}/cancel`)
      ).json()) as JobCancelStateResponse;
      // The reason comes back redacted, like a failure reason.
      expect(state.request).toMatchObject({ reason: 'token=[redacted] please', forced: false });
      expect(state.request!.ageMs).toBeGreaterThanOrEqual(0);
      expect(state.canForce).toBe(false);
      expect(state.graceMs).toBeGreaterThan(0);

      const forced = await operator.post(`${ignoringBase}/jobs/${job.id}/cancel`, { force: true });
      expect(forced.status).toBe(409);
      expect(((await forced.json()) as ApiError).code).toBe('CONFLICT');
      const missing = await viewer.get(`${ignoringBase}/jobs/missing-job/cancel`);
      expect(missing.status).toBe(404);
    } finally {
      release();
      await ignoring.close(true);
      await ignoringQueue.obliterate({ force: true });
      await ignoringQueue.close();
    }
  });

  it('says when the job is not running, and refuses a viewer', async () => {
    const delayed = await queue.add('later', {}, { delay: 60_000 });
    const response = await operator.post(`${base}/jobs/${delayed.id}/cancel`, {});
    expect((await response.json()) as JobCancelResponse).toEqual({ outcome: 'not-active' });
    const refused = await viewer.post(`${base}/jobs/${delayed.id}/cancel`, {});
    expect(refused.status).toBe(403);
  });
});
