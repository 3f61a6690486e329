/**
 * GET /api/events against `next start`: a session is required, events XADDed by a real engine
 * Queue and Worker arrive on the stream, subscribers only get their queues, and the one reader
 * per process (and its blocking Redis connection) goes away when the last browser leaves.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { LiveEventsMessage } from '../../lib/api-types';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { anonymousClient, signIn, type ConsoleClient } from './console-client';
import { openSse, type SseMessage } from './sse';
import { VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const watchedName = uniqueQueueName('live');
const otherName = uniqueQueueName('live-other');
const watched = new Queue(watchedName, { connection: redisOptions() });
const other = new Queue(otherName, { connection: redisOptions() });
let viewer: ConsoleClient;

const LIVE_CONNECTION = 'oxmq:console:live';
const eventsPath = (...names: string[]) =>
  `/api/events?queues=${encodeURIComponent(names.map((name) => `bull/${name}`).join(','))}`;

/** Connections the console's live reader holds, from the server's own client names. */
async function liveConnections(): Promise<number> {
  const list = String(await redis.client('LIST'));
  return list.split('\n').filter((line) => line.includes(` name=${LIVE_CONNECTION} `)).length;
}

function batchesOf(message: SseMessage): LiveEventsMessage['batches'] {
  return message.event === 'events' ? (JSON.parse(message.data) as LiveEventsMessage).batches : [];
}

const hasEvent = (name: string, event: string, jobId?: string) => (message: SseMessage) =>
  batchesOf(message).some(
    (batch) =>
      batch.name === name &&
      batch.events.some((e) => e.event === event && (jobId === undefined || e.jobId === jobId)),
  );

beforeAll(async () => {
  await Promise.all([watched.waitUntilReady(), other.waitUntilReady()]);
  viewer = await signIn(baseUrl, VIEWER);
});

afterAll(async () => {
  await Promise.all([watched.close(), other.close()]);
  await redis.quit();
});

describe('GET /api/events', () => {
  it('answers 401 without a session', async () => {
    const response = await anonymousClient(baseUrl).get(eventsPath(watchedName));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses a malformed queue list with 422 and a foreign prefix with 404', async () => {
    const bad = await viewer.get('/api/events?queues=no-slash-here');
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ code: 'INVALID_INPUT' });
    const foreign = await viewer.get(`/api/events?queues=${encodeURIComponent('elsewhere/q')}`);
    expect(foreign.status).toBe(404);
  });

  it('streams the events of the watched queue, from a real Queue and Worker', async () => {
    const stream = await openSse(viewer, eventsPath(watchedName));
    try {
      expect(stream.status).toBe(200);
      await stream.next((message) => message.event === 'ready');
      // An event of a queue nobody asked for first: it must not reach this subscriber.
      await other.add('ignored', {});
      const job = await watched.add('hello', { n: 1 });
      await stream.next(hasEvent(watchedName, 'added', job.id), 5_000);

      const worker = new Worker(watchedName, async () => 'done', { connection: redisOptions() });
      try {
        await stream.next(hasEvent(watchedName, 'completed', job.id), 5_000);
      } finally {
        await worker.close();
      }
      expect(stream.messages.some(hasEvent(otherName, 'added'))).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('runs one reader for many subscribers and closes it when they all disconnect', async () => {
    const first = await openSse(viewer, eventsPath(watchedName));
    const second = await openSse(viewer, eventsPath(otherName));
    try {
      await Promise.all([
        first.next((message) => message.event === 'ready'),
        second.next((message) => message.event === 'ready'),
      ]);
      expect(await liveConnections()).toBe(1);
      const job = await other.add('fan-out', {});
      await second.next(hasEvent(otherName, 'added', job.id), 5_000);
      expect(first.messages.some(hasEvent(otherName, 'added', job.id))).toBe(false);
    } finally {
      first.close();
      second.close();
    }
    await waitFor(async () => (await liveConnections()) === 0, 5_000, 50);

    for (let round = 0; round < 5; round++) {
      const stream = await openSse(viewer, eventsPath(watchedName, otherName));
      await stream.next((message) => message.event === 'ready');
      stream.close();
    }
    await waitFor(async () => (await liveConnections()) === 0, 5_000, 50);
    // And it still works after all that churn.
    const again = await openSse(viewer, eventsPath(watchedName));
    try {
      await again.next((message) => message.event === 'ready');
      const job = await watched.add('after-churn', {});
      await again.next(hasEvent(watchedName, 'added', job.id), 5_000);
    } finally {
      again.close();
    }
    await waitFor(async () => (await liveConnections()) === 0, 5_000, 50);
  });
});
