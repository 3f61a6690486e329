/**
 * What one signed-in user may make the console and Redis do, against a console of this file's
 * own (the budgets are per process, so the shared console's other tests are not touched):
 * per-user budgets on the expensive reads (search, timeline) answered 429 with Retry-After,
 * a cap on one user's open live streams, and live streams only for queues that exist.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type { ApiError } from '../../lib/api-types';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { openSse, type SseStream } from './sse';
import { consoleEnv, OPERATOR, VIEWER } from './users';

const name = uniqueQueueName('limits');
let queue: Queue;
let server: ConsoleServer;
let viewer: ConsoleClient;
let operator: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.add('one', { n: 1 });
  server = await startConsole(consoleEnv(inject('redisPort')));
  [viewer, operator] = await Promise.all([
    signIn(server.url, VIEWER),
    signIn(server.url, OPERATOR),
  ]);
});

afterAll(async () => {
  await server.stop();
  await queue.obliterate({ force: true });
  await queue.close();
});

async function expectLimited(response: Response, code: ApiError['code']): Promise<void> {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(((await response.json()) as ApiError).code).toBe(code);
}

/**
 * Requests until the first refusal: at least the burst (60) must pass, and a refusal must come
 * well before a refill (2/s) could keep up with requests sent back to back.
 */
async function untilRefused(request: () => Promise<Response>): Promise<Response> {
  for (let sent = 0; sent < 200; sent += 1) {
    const response = await request();
    if (response.status === 200) continue;
    expect(sent).toBeGreaterThanOrEqual(60);
    return response;
  }
  throw new Error('200 requests in a row were all answered: no budget');
}

describe('per-user budgets', () => {
  it('a user who spends the search budget gets 429; another user does not', async () => {
    const search = (client: ConsoleClient) =>
      client.get(`/api/queues/bull/${name}/search?mode=name&state=waiting&q=one`);
    const refused = await untilRefused(() => search(viewer));
    await expectLimited(refused, 'RATE_LIMITED');
    expect((await search(operator)).status).toBe(200);
  });

  it('the timeline has a budget of its own', async () => {
    const job = await queue.add('timed', {});
    const timeline = () => viewer.get(`/api/queues/bull/${name}/jobs/${job.id}/timeline`);
    await expectLimited(await untilRefused(timeline), 'RATE_LIMITED');
  });
});

describe('live streams', () => {
  it('caps one user’s open streams and gives a slot back when one closes', async () => {
    const path = `/api/events?queues=${encodeURIComponent(`bull/${name}`)}`;
    const streams: SseStream[] = [];
    try {
      for (let i = 0; i < 8; i += 1) {
        const stream = await openSse(operator, path);
        expect(stream.status).toBe(200);
        await stream.next((message) => message.event === 'ready');
        streams.push(stream);
      }
      const refused = await operator.get(path);
      await expectLimited(refused, 'TOO_MANY_STREAMS');
      streams.pop()!.close();
      // The server sees the abort shortly after; a new stream then fits.
      let again: SseStream | undefined;
      for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt += 1) {
        again?.close();
        again = await openSse(operator, path);
        if (again.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(again?.status).toBe(200);
      streams.push(again!);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('watches only queues that exist', async () => {
    const madeUp = uniqueQueueName('no-such-queue');
    const path = `/api/events?queues=${encodeURIComponent(`bull/${name},bull/${madeUp}`)}`;
    const stream = await openSse(viewer, path);
    try {
      const ready = await stream.next((message) => message.event === 'ready');
      expect(JSON.parse(ready.data)).toEqual({ queues: 1 });
    } finally {
      stream.close();
    }
  });
});

describe('a live stream with nothing to watch', () => {
  it('keeps the console answering while it is open', async () => {
    const madeUp = uniqueQueueName('nothing-here');
    const stream = await openSse(
      viewer,
      `/api/events?queues=${encodeURIComponent(`bull/${madeUp}`)}`,
    );
    try {
      const ready = await stream.next((message) => message.event === 'ready');
      expect(JSON.parse(ready.data)).toEqual({ queues: 0 });
      // A reader spinning on empty reads would starve the event loop: health would not answer.
      const started = Date.now();
      const health = await fetch(`${server.url}/api/health`, {
        signal: AbortSignal.timeout(5_000),
      });
      expect(health.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      stream.close();
    }
  });
});
