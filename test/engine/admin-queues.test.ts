/**
 * engine/admin queue discovery and overviews, on data written by OxMQ's own
 * Queue/Worker and by the real bullmq 6.7.0, plus the audit stream.
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import {
  appendAudit,
  getQueueOverview,
  listQueues,
  pauseQueue,
  queueExists,
  readAudit,
  resumeQueue,
} from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
/** A scan budget no test server's key count reaches. */
const WHOLE_SERVER = 100_000_000;
const client = rawClient();
afterAll(() => client.quit());

/** A prefix of this test's own, so discovery sees only what the test wrote. */
const uniquePrefix = (label: string) => `adm-${label}-${randomUUID().slice(0, 6)}`;

describe('listQueues', () => {
  it('finds OxMQ and bullmq queues under each prefix, sorted, without duplicates', async () => {
    const prefixA = uniquePrefix('a');
    const prefixB = uniquePrefix('b');
    for (const name of ['zeta', 'alpha']) {
      await track(
        new Queue(name, { connection: redisOptions(), prefix: prefixA }),
      ).waitUntilReady();
    }
    await track(
      new BullQueue('beta', { connection: redisOptions(), prefix: prefixB }),
    ).waitUntilReady();
    // Not a queue meta: a longer key that also ends in :meta.
    await client.set(`${prefixA}:alpha:job:meta`, 'x');

    // The server is shared by the whole test run: the walk must reach the end of its keys,
    // however many the other tests left, for `complete` to mean anything here.
    const list = await listQueues(client, [prefixA, prefixB], { maxScan: WHOLE_SERVER });
    expect(list.complete).toBe(true);
    expect(list.queues).toEqual([
      { prefix: prefixA, name: 'alpha' },
      { prefix: prefixA, name: 'zeta' },
      { prefix: prefixB, name: 'beta' },
    ]);
  });

  it('matches a prefix literally, glob characters included', async () => {
    const prefix = `{${uniquePrefix('g')}}`;
    await track(new Queue('q1', { connection: redisOptions(), prefix })).waitUntilReady();
    await client.hset(`${prefix.slice(0, -1)}X}:q2:meta`, 'version', 'x');
    const list = await listQueues(client, [prefix, '*']);
    // '*' matches a key literally named "*:<name>:meta" only, never every prefix.
    expect(list.queues).toEqual([{ prefix, name: 'q1' }]);
  });

  it('stops at the scan budget and says the listing is incomplete', async () => {
    const prefix = uniquePrefix('cap');
    const pipeline = client.pipeline();
    for (let i = 0; i < 300; i++) pipeline.set(`${prefix}:filler${i}`, '1');
    await pipeline.exec();
    const list = await listQueues(client, [prefix], { maxScan: 20, scanCount: 10 });
    expect(list.complete).toBe(false);
    expect(list.scanned).toBe(20);
  });
});

describe('getQueueOverview', () => {
  it('reports counts, workers, paused, limits and metrics for an OxMQ queue', async () => {
    const prefix = uniquePrefix('ov');
    const name = uniqueQueueName('ov');
    const queue = track(new Queue(name, { connection: redisOptions(), prefix }));
    await queue.addBulk([
      { name: 'ok', data: { n: 1 } },
      { name: 'ok', data: { n: 2 } },
      { name: 'boom', data: { n: 3 } },
    ]);
    await queue.add('later', {}, { delay: 60_000 });
    await queue.add('vip', {}, { priority: 5 });
    await queue.setGlobalConcurrency(4);
    await queue.setGlobalRateLimit(100, 1_000);

    const worker = track(
      new Worker(
        name,
        async (job) => {
          if (job.name === 'boom') throw new Error('boom');
          return 'done';
        },
        { connection: redisOptions(), prefix, metrics: { maxDataPoints: 60 }, name: 'w-one' },
      ),
    );
    await waitFor(async () => {
      const counts = await queue.getJobCounts('completed', 'failed');
      return counts.completed === 3 && counts.failed === 1;
    });

    const overview = await getQueueOverview(client, prefix, name);
    expect(overview).toMatchObject({
      prefix,
      name,
      counts: {
        waiting: 0,
        active: 0,
        delayed: 1,
        prioritized: 0,
        completed: 3,
        failed: 1,
        'waiting-children': 0,
      },
      paused: false,
      rateLimited: false,
      globalConcurrency: 4,
      rateLimit: { max: 100, duration: 1_000 },
    });
    expect(overview.workers.map((w) => w.workerName)).toEqual(['w-one']);
    expect(overview.metrics.completed.total).toBe(3);
    expect(overview.metrics.failed.total).toBe(1);
    // The first minute is not closed yet: bullmq's layout keeps it as count - prevCount.
    expect(overview.metrics.completed.pending).toBe(3);
    expect(overview.metrics.failed.pending).toBe(1);
    expect(overview.version).toMatch(/^bullmq-oxmq:/);
    expect(overview.oldestWaitingAt).toBeNull();
    expect(overview.problems).toEqual([]);

    await worker.close();
    await pauseQueue(client, prefix, name);
    await queue.add('while-paused', {});
    const paused = await getQueueOverview(client, prefix, name);
    expect(paused.paused).toBe(true);
    expect(paused.counts.waiting).toBe(1);
    expect(paused.workers).toEqual([]);
    expect(paused.oldestWaitingAt).toBeGreaterThan(Date.now() - 60_000);
    expect(paused.problems.map((problem) => problem.kind)).toEqual(['no-worker', 'paused']);
    await resumeQueue(client, prefix, name);
    expect((await getQueueOverview(client, prefix, name)).paused).toBe(false);
  });

  it('reads a bullmq-written queue: its worker, rate limit and limiter window', async () => {
    const prefix = uniquePrefix('bq');
    const name = uniqueQueueName('bq');
    const queue = track(new BullQueue(name, { connection: redisOptions(), prefix }));
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'j', data: { n } })));
    const worker = track(
      new BullWorker(name, async () => 'ok', {
        connection: redisOptions(),
        prefix,
        limiter: { max: 1, duration: 30_000 },
      }),
    );
    await waitFor(async () => (await queue.getJobCounts('completed')).completed === 1);

    const overview = await getQueueOverview(client, prefix, name);
    expect(overview.counts.completed).toBe(1);
    expect(overview.counts.waiting).toBe(2);
    expect(overview.workers).toHaveLength(1);
    // A bullmq 6.7 worker's limiter lives in its own options, not in meta; the limiter key's
    // PTTL still shows the window holding jobs back.
    expect(overview.rateLimit).toBeNull();
    expect(overview.rateLimited).toBe(true);
    expect(overview.rateLimitTtlMs).toBeGreaterThan(0);
    expect(overview.rateLimitTtlMs).toBeLessThanOrEqual(30_000);
    expect(overview.version).toMatch(/^bullmq:6\.7\.0/);
    await worker.close();
  });

  it('knows whether a queue exists without creating it', async () => {
    const prefix = uniquePrefix('ex');
    expect(await queueExists(client, prefix, 'nope')).toBe(false);
    expect(await client.exists(`${prefix}:nope:meta`)).toBe(0);
    await track(new Queue('yes', { connection: redisOptions(), prefix })).waitUntilReady();
    expect(await queueExists(client, prefix, 'yes')).toBe(true);
  });

  it('does not add an error listener to the shared client per overview', async () => {
    const prefix = uniquePrefix('ls');
    await track(new Queue('q', { connection: redisOptions(), prefix })).waitUntilReady();
    const before = client.listenerCount('error');
    for (let i = 0; i < 20; i++) await getQueueOverview(client, prefix, `q${i % 3}`);
    expect(client.listenerCount('error')).toBe(before);
  });
});

describe('audit stream', () => {
  it('appends entries and pages through them newest first', async () => {
    const key = `adm-audit-${randomUUID()}`;
    for (let i = 0; i < 5; i++) {
      await appendAudit(
        client,
        {
          actor: 'ada',
          role: 'operator',
          action: 'queue.pause',
          target: `bull:q${i}`,
          params: { prefix: 'bull', name: `q${i}` },
          outcome: i === 4 ? 'denied' : 'ok',
          status: i === 4 ? 403 : 200,
          code: i === 4 ? 'READ_ONLY' : undefined,
        },
        { key },
      );
    }
    const first = await readAudit(client, { key, count: 2 });
    expect(first.entries.map((e) => e.target)).toEqual(['bull:q4', 'bull:q3']);
    expect(first.entries[0]).toMatchObject({
      actor: 'ada',
      outcome: 'denied',
      status: 403,
      code: 'READ_ONLY',
      params: { prefix: 'bull', name: 'q4' },
    });
    expect(first.entries[0]!.at).toBeGreaterThan(Date.now() - 60_000);
    const second = await readAudit(client, { key, count: 2, before: first.next! });
    expect(second.entries.map((e) => e.target)).toEqual(['bull:q2', 'bull:q1']);
    const last = await readAudit(client, { key, count: 2, before: second.next! });
    expect(last.entries.map((e) => e.target)).toEqual(['bull:q0']);
    expect(last.next).toBeNull();
    await expect(readAudit(client, { key, before: '+ bad' })).rejects.toThrow(RangeError);
  });

  it('trims to roughly maxLen entries', async () => {
    const key = `adm-audit-${randomUUID()}`;
    const record = {
      actor: 'a',
      role: 'admin',
      action: 'x',
      target: 't',
      params: {},
      outcome: 'ok' as const,
      status: 200,
    };
    for (let i = 0; i < 400; i++) await appendAudit(client, record, { key, maxLen: 100 });
    // "~" trims whole radix-tree nodes (100 entries by default), so allow one node of slack.
    expect(await client.xlen(key)).toBeLessThanOrEqual(200);
  });
});
