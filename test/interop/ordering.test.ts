/**
 * Interop with the real bullmq 6.7.0, docs/redis-keys.md, each in both directions
 * (B = bullmq, N = OxMQ): FIFO, LIFO, priorities, delayed jobs and marker wake-ups.
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import type { WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { collectErrors, waitForBlockedWorker } from '../helpers/interop-core';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { queueKey, zsetWithScores } from '../helpers/redis-state';
import { DIRECTIONS, sideProducer } from '../helpers/side-worker';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

interface Started {
  id: string;
  name: string;
  data: unknown;
  at: number;
}

/**
 * Starts a concurrency-1 worker of the given side that records every job it starts; returns
 * the record and the worker's error list (asserted empty at the end of each test).
 */
function consumer(
  side: WorkerSide,
  queueName: string,
  opts: { drainDelay?: number } = {},
): { started: Started[]; errors: Error[] } {
  const started: Started[] = [];
  const record = (job: { id?: string; name: string; data: unknown }) => {
    started.push({ id: job.id!, name: job.name, data: job.data, at: Date.now() });
  };
  const common = { ...connection(), concurrency: 1, ...opts };
  const worker =
    side === 'bullmq'
      ? track(new BullWorker(queueName, async (job) => record(job), common))
      : track(new Worker(queueName, async (job) => record(job), common));
  return { started, errors: collectErrors(worker) };
}

describe.each(DIRECTIONS)(
  'interop: ordering: $producer producer → $consumer worker',
  ({ producer: producerSide, consumer: consumerSide }) => {
    it('FIFO: 20 jobs run in insertion order', async () => {
      const name = uniqueQueueName('i4');
      const p = sideProducer(track, producerSide, name);
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await p.add('fifo', { i }));
      const { started, errors } = consumer(consumerSide, name);
      await waitFor(() => started.length === 20);
      expect(started.map((s) => s.id)).toEqual(ids);
      expect(started.map((s) => s.data)).toEqual(ids.map((_, i) => ({ i })));
      expect(errors).toEqual([]);
    });

    it('FIFO across add and addBulk: one insertion order', async () => {
      const name = uniqueQueueName('i4bulk');
      const p = sideProducer(track, producerSide, name);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await p.add('fifo', { i }));
      ids.push(...(await p.addBulk([3, 4, 5, 6, 7].map((i) => ({ name: 'bulk', data: { i } })))));
      for (let i = 8; i < 10; i++) ids.push(await p.add('fifo', { i }));
      const { started, errors } = consumer(consumerSide, name);
      await waitFor(() => started.length === 10);
      expect(started.map((s) => s.id)).toEqual(ids);
      expect(started.map((s) => s.data)).toEqual(ids.map((_, i) => ({ i })));
      expect(errors).toEqual([]);
    });

    it('LIFO: lifo jobs first in reverse insertion order, then the FIFO ones', async () => {
      const name = uniqueQueueName('i5');
      const p = sideProducer(track, producerSide, name);
      const fifo: string[] = [];
      const lifo: string[] = [];
      for (let i = 0; i < 8; i++) {
        if (i % 2 === 1) lifo.push(await p.add('lifo', { i }, { lifo: true }));
        else fifo.push(await p.add('fifo', { i }));
      }
      const { started, errors } = consumer(consumerSide, name);
      await waitFor(() => started.length === 8);
      expect(started.map((s) => s.id)).toEqual([...[...lifo].reverse(), ...fifo]);
      expect(errors).toEqual([]);
    });

    it('priorities: priority 0 first, then 1 (FIFO among equals), 3, 5', async () => {
      const name = uniqueQueueName('i6');
      const redis = track(rawClient());
      const p = sideProducer(track, producerSide, name);
      const a5 = await p.add('p5', {}, { priority: 5 });
      const b1 = await p.add('p1-first', {}, { priority: 1 });
      const c3 = await p.add('p3', {}, { priority: 3 });
      const d1 = await p.add('p1-second', {}, { priority: 1 });
      const e0 = await p.add('p0', {}, { priority: 0 });

      // Encoding: priority * 2^32 + the queue's priority counter.
      expect(await zsetWithScores(redis, queueKey(name, 'prioritized'))).toEqual([
        [b1, String(2 ** 32 + 2)],
        [d1, String(2 ** 32 + 4)],
        [c3, String(3 * 2 ** 32 + 3)],
        [a5, String(5 * 2 ** 32 + 1)],
      ]);
      expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([e0]);
      // bullmq's per-priority counts over either library's data.
      const bq = track(new BullQueue(name, connection()));
      expect(await bq.getCountsPerPriority([0, 1, 3, 5])).toEqual({ 0: 1, 1: 2, 3: 1, 5: 1 });

      const { started, errors } = consumer(consumerSide, name);
      await waitFor(() => started.length === 5);
      expect(started.map((s) => s.id)).toEqual([e0, b1, d1, c3, a5]);
      // A worker that finds `prioritized` empty resets the counter.
      expect(await redis.exists(queueKey(name, 'pc'))).toBe(0);
      expect(errors).toEqual([]);
    });
  },
);

describe('interop: delayed jobs', () => {
  it('OxMQ delayed job, idle bullmq worker: never early, on time (marker "1" + score)', async () => {
    const name = uniqueQueueName('i7a');
    const redis = track(rawClient());
    const nq = track(new Queue(name, connection()));
    // A long drain delay: only the delayed marker can wake this worker on time.
    const { started, errors } = consumer('bullmq', name, { drainDelay: 20 });
    await waitForBlockedWorker(redis, name);

    const job = await nq.add('later', { d: 1 }, { delay: 1500 });
    const due = job.timestamp + 1500;
    expect(await redis.zscore(queueKey(name, 'delayed'), job.id)).toBe(String(due * 4096));

    await waitFor(() => started.length === 1, 10_000);
    const hash = await redis.hgetall(queueKey(name, job.id));
    expect(started[0]!.at).toBeGreaterThanOrEqual(due);
    expect(Number(hash.processedOn)).toBeGreaterThanOrEqual(due);
    // Generous slack for two noisy cores; a missed marker would mean ~20 s.
    expect(started[0]!.at - due).toBeLessThan(1500);
    expect(hash.delay).toBe('0');
    expect(errors).toEqual([]);
  });

  it('bullmq delayed jobs due in the same ms, idle OxMQ worker: insertion order, never early', async () => {
    const name = uniqueQueueName('i7b');
    const redis = track(rawClient());
    const bq = track(new BullQueue(name, connection()));
    const { started, errors } = consumer('oxmq', name, { drainDelay: 20 });
    await waitForBlockedWorker(redis, name);

    const timestamp = Date.now();
    const due = timestamp + 1000;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await bq.add('same-ms', { i }, { delay: 1000, timestamp })).id!);
    }
    expect(await zsetWithScores(redis, queueKey(name, 'delayed'))).toEqual(
      ids.map((id, i) => [id, String(due * 4096 + i)]),
    );

    await waitFor(() => started.length === 5, 10_000);
    expect(started.map((s) => s.id)).toEqual(ids);
    for (const s of started) expect(s.at).toBeGreaterThanOrEqual(due);
    for (const id of ids) {
      expect(Number(await redis.hget(queueKey(name, id), 'processedOn'))).toBeGreaterThanOrEqual(
        due,
      );
    }
    expect(started[0]!.at - due).toBeLessThan(1500);
    expect(errors).toEqual([]);
  });

  it('bullmq delayed job, idle OxMQ worker: woken by the delayed marker, not the drain delay', async () => {
    const name = uniqueQueueName('i7c');
    const redis = track(rawClient());
    const bq = track(new BullQueue(name, connection()));
    const { started, errors } = consumer('oxmq', name, { drainDelay: 20 });
    await waitForBlockedWorker(redis, name);
    const job = await bq.add('later', {}, { delay: 1200 });
    const due = job.timestamp + 1200;
    await waitFor(() => started.length === 1, 10_000);
    expect(started[0]!.at).toBeGreaterThanOrEqual(due);
    expect(started[0]!.at - due).toBeLessThan(1500);
    expect(errors).toEqual([]);
  });
});

describe.each(DIRECTIONS)(
  'interop: marker wake-up: $producer adds, blocked $consumer worker',
  ({ producer: producerSide, consumer: consumerSide }) => {
    it('starts the job well before the 5 s drain delay runs out', async () => {
      const name = uniqueQueueName('i8');
      const redis = track(rawClient());
      const p = sideProducer(track, producerSide, name);
      const { started, errors } = consumer(consumerSide, name, { drainDelay: 5 });
      await waitForBlockedWorker(redis, name);

      const addedAt = Date.now();
      const id = await p.add('wake', { w: 1 });
      await waitFor(() => started.length === 1, 10_000);
      expect(started[0]!.id).toBe(id);
      expect(started[0]!.at - addedAt).toBeLessThan(2500);
      expect(errors).toEqual([]);
    });

    it('wakes again for a second job after finishing the first (marker re-armed)', async () => {
      const name = uniqueQueueName('i8b');
      const redis = track(rawClient());
      const p = sideProducer(track, producerSide, name);
      const { started, errors } = consumer(consumerSide, name, { drainDelay: 5 });
      await waitForBlockedWorker(redis, name);
      await p.add('first', {});
      await waitFor(() => started.length === 1, 10_000);
      await waitForBlockedWorker(redis, name);
      const addedAt = Date.now();
      await p.add('second', {});
      await waitFor(() => started.length === 2, 10_000);
      expect(started[1]!.at - addedAt).toBeLessThan(2500);
      expect(errors).toEqual([]);
    });
  },
);
