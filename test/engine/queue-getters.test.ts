/**
 * Queue's bullmq 6.7 getters and housekeeping methods, answered side by side with the real
 * bullmq Queue over the same data (OxMQ-written here; bullmq reads it as its own).
 */
import { FlowProducer as BullFlowProducer, Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { ClosedError, FlowProducer, OXMQ_VERSION, Queue, QueueEvents, ValidationError } from 'oxmq';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

type Closable = { close(): Promise<unknown> } | { quit(): Promise<unknown> };
const open: Closable[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) {
    if ('close' in item) await item.close();
    else await item.quit();
  }
});
function track<T extends Closable>(item: T): T {
  open.push(item);
  return item;
}

/** An OxMQ Queue and a bullmq Queue on the same queue name. */
async function pair(label: string): Promise<{ ours: Queue; theirs: BullQueue; name: string }> {
  const name = uniqueQueueName(label);
  const ours = track(new Queue(name, { connection: redisOptions() }));
  await ours.waitUntilReady();
  // skipMetasUpdate: bullmq must not overwrite the meta OxMQ wrote.
  const theirs = track(new BullQueue(name, { connection: redisOptions(), skipMetasUpdate: true }));
  return { ours, theirs, name };
}

/** wait: 3 jobs, prioritized: 2 (priorities 2 and 5), delayed: 2. */
async function seed(queue: Queue): Promise<void> {
  await queue.add('a', { n: 1 });
  await queue.add('b', { n: 2 });
  await queue.add('c', { n: 3 });
  await queue.add('p2', {}, { priority: 2 });
  await queue.add('p5', {}, { priority: 5 });
  await queue.add('d1', {}, { delay: 60_000 });
  await queue.add('d2', {}, { delay: 120_000 });
}

describe('Queue counts', () => {
  it('answers each count as bullmq does', async () => {
    const { ours, theirs } = await pair('counts');
    await seed(ours);
    expect(await ours.getWaitingCount()).toBe(await theirs.getWaitingCount());
    expect(await ours.getWaitingCount()).toBe(3);
    expect(await ours.getPrioritizedCount()).toBe(await theirs.getPrioritizedCount());
    expect(await ours.getDelayedCount()).toBe(await theirs.getDelayedCount());
    expect(await ours.getActiveCount()).toBe(await theirs.getActiveCount());
    expect(await ours.getCompletedCount()).toBe(await theirs.getCompletedCount());
    expect(await ours.getFailedCount()).toBe(await theirs.getFailedCount());
    expect(await ours.getWaitingChildrenCount()).toBe(await theirs.getWaitingChildrenCount());
    const cutoff = Date.now() + 90_000;
    expect(await ours.getDelayedCount(cutoff)).toBe(await theirs.getDelayedCount(cutoff));
    expect(await ours.getDelayedCount(cutoff)).toBe(1);
  });

  it('keys getJobCounts by the names the caller used', async () => {
    const { ours, theirs } = await pair('countkeys');
    await seed(ours);
    expect(await ours.getJobCounts('wait')).toEqual({ wait: 3 });
    expect(await ours.getJobCounts('wait')).toEqual(await theirs.getJobCounts('wait'));
    expect(await ours.getJobCounts('waiting', 'delayed')).toEqual(
      await theirs.getJobCounts('waiting', 'delayed'),
    );
    expect(await ours.getJobCounts()).toEqual(await theirs.getJobCounts());
  });

  it('counts per priority as bullmq does', async () => {
    const { ours, theirs } = await pair('cpp');
    await seed(ours);
    const asked = [0, 2, 3, 5];
    expect(await ours.getCountsPerPriority(asked)).toEqual({ 0: 3, 2: 1, 3: 0, 5: 1 });
    expect(await ours.getCountsPerPriority(asked)).toEqual(
      await theirs.getCountsPerPriority(asked),
    );
    await expect(ours.getCountsPerPriority([-1])).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('Queue ranges and listings', () => {
  it('getRanges matches bullmq, including its default end and ascending lists', async () => {
    const { ours, theirs } = await pair('ranges');
    await seed(ours);
    const types = ['wait', 'delayed', 'prioritized'] as const;
    expect(await ours.getRanges([...types])).toEqual(await theirs.getRanges([...types]));
    expect(await ours.getRanges([...types], 0, -1)).toEqual(
      await theirs.getRanges([...types], 0, -1),
    );
    expect(await ours.getRanges([...types], 0, -1, true)).toEqual(
      await theirs.getRanges([...types], 0, -1, true),
    );
    expect(await ours.getRanges(['waiting'], 1, 2, true)).toEqual(
      await theirs.getRanges(['waiting'], 1, 2, true),
    );
  });

  it('accepts negative indexes in getJobs and getRanges like bullmq', async () => {
    const { ours, theirs } = await pair('negative');
    await seed(ours);
    const ids = (jobs: { id?: string }[]) => jobs.map((job) => job.id);
    for (const [start, end, asc] of [
      [-2, -1, false],
      [-2, -1, true],
      [0, -2, false],
      [0, -2, true],
      [-3, -2, false],
    ] as const) {
      expect(ids(await ours.getJobs(['wait', 'delayed'], start, end, asc))).toEqual(
        ids(await theirs.getJobs(['wait', 'delayed'], start, end, asc)),
      );
      expect(await ours.getRanges(['wait', 'delayed'], start, end, asc)).toEqual(
        await theirs.getRanges(['wait', 'delayed'], start, end, asc),
      );
    }
    expect(ids(await ours.getJobs(['wait'], -3))).toEqual(ids(await theirs.getJobs(['wait'], -3)));
  });

  it('reads job logs with negative indexes like bullmq', async () => {
    const { ours, theirs } = await pair('logs');
    const job = await ours.add('logged', {});
    for (const line of ['one', 'two', 'three', 'four']) await ours.addJobLog(job.id, line);
    expect(await ours.addJobLog(job.id, 'five', 3)).toBe(3);
    for (const [start, end, asc] of [
      [0, -1, true],
      [-2, -1, true],
      [-2, -1, false],
      [0, 0, false],
    ] as const) {
      expect(await ours.getJobLogs(job.id, start, end, asc)).toEqual(
        await theirs.getJobLogs(job.id, start, end, asc),
      );
    }
  });
});

describe('Queue meta', () => {
  it('parses the meta hash as bullmq does', async () => {
    const { ours, theirs } = await pair('meta');
    expect(await ours.getMeta()).toEqual({
      ...(await theirs.getMeta()),
      version: `bullmq-oxmq:${OXMQ_VERSION}`,
    });
    await ours.setGlobalConcurrency(3);
    await ours.setGlobalRateLimit(5, 1000);
    await ours.pause();
    const meta = await ours.getMeta();
    expect(meta).toEqual(await theirs.getMeta());
    expect(meta).toMatchObject({ concurrency: 3, max: 5, duration: 1000, paused: true });
    expect(meta.maxLenEvents).toBe(10_000);
    expect(meta['opts.maxLenEvents']).toBeUndefined();
  });

  it('names its keys and itself as bullmq does', async () => {
    const { ours, theirs } = await pair('names');
    expect(ours.toKey('wait')).toBe(theirs.toKey('wait'));
    expect(ours.qualifiedName).toBe(theirs.qualifiedName);
    expect(ours.metaValues['opts.maxLenEvents']).toBe(10_000);
    expect(typeof ours.token).toBe('string');
    expect(await ours.getVersion()).toBe(`bullmq-oxmq:${OXMQ_VERSION}`);
    const client = track(rawClient());
    await client.hdel(ours.toKey('meta'), 'version');
    expect(await ours.getVersion()).toBeNull();
    expect(await theirs.getVersion()).toBeNull();
  });
});

describe('Queue housekeeping', () => {
  it('trims the events stream', async () => {
    const { ours } = await pair('trim');
    for (let i = 0; i < 300; i++) await ours.add('e', {});
    const client = track(rawClient());
    const before = await client.xlen(ours.toKey('events'));
    const dropped = await ours.trimEvents(10);
    expect(dropped).toBeGreaterThan(0);
    expect(await client.xlen(ours.toKey('events'))).toBe(before - dropped);
    await expect(ours.trimEvents(-1)).rejects.toBeInstanceOf(ValidationError);
  });

  it('removes the rate-limit key and tells when the queue is maxed', async () => {
    const { ours, theirs } = await pair('limits');
    await ours.rateLimit(10_000);
    expect(await ours.getRateLimitTtl()).toBeGreaterThan(0);
    expect(await ours.removeRateLimitKey()).toBe(1);
    expect(await ours.getRateLimitTtl()).toBe(await theirs.getRateLimitTtl());
    expect(await ours.isMaxed()).toBe(false);
    await ours.setGlobalConcurrency(1);
    const client = track(rawClient());
    await client.lpush(ours.toKey('active'), 'x');
    expect(await ours.isMaxed()).toBe(true);
    expect(await theirs.isMaxed()).toBe(true);
  });

  it('removes the legacy priority key', async () => {
    const { ours } = await pair('legacyprio');
    const client = track(rawClient());
    await client.set(ours.toKey('priority'), '1');
    expect(await ours.removeDeprecatedPriorityKey()).toBe(1);
    expect(await client.exists(ours.toKey('priority'))).toBe(0);
  });

  it('updates a job progress and log from the queue', async () => {
    const { ours, theirs } = await pair('progress');
    const job = await ours.add('p', {});
    const local: unknown[] = [];
    ours.on('progress', (...args: unknown[]) => local.push(args));
    await ours.updateJobProgress(job.id, { step: 2 });
    expect(local).toEqual([[job.id, { step: 2 }]]);
    expect((await theirs.getJob(job.id))?.progress).toEqual({ step: 2 });
    await ours.addJobLog(job.id, 'hello');
    expect(await theirs.getJobLogs(job.id)).toEqual({ logs: ['hello'], count: 1 });
  });

  it('keeps the deprecated debounce names working', async () => {
    const { ours } = await pair('debounce');
    const job = await ours.add('d', {}, { deduplication: { id: 'k' } });
    expect(await ours.getDebounceJobId('k')).toBe(job.id);
    expect(await ours.removeDebounceKey('k')).toBe(1);
    expect(await ours.getDeduplicationJobId('k')).toBeNull();
  });

  it('lists connected QueueEvents as bullmq does', async () => {
    const { ours, theirs } = await pair('qe');
    const events = track(new QueueEvents(ours.name, { connection: redisOptions() }));
    await events.waitUntilReady();
    const listed = await waitFor(async () => {
      const found = await ours.getQueueEvents();
      return found.length === 1 ? found : undefined;
    });
    expect(listed?.[0]).toMatchObject({ name: ours.name });
    expect(listed?.[0]?.rawname).toBe((await theirs.getQueueEvents())[0]?.rawname);
  });
});

describe('Queue.getDependencies', () => {
  it('pages pending and processed children as bullmq does', async () => {
    const name = uniqueQueueName('deps');
    const flows = track(new BullFlowProducer({ connection: redisOptions() }));
    await flows.add({
      name: 'parent',
      queueName: name,
      opts: { jobId: 'par' },
      children: [
        { name: 'c1', queueName: name, data: { a: 1 }, opts: { jobId: 'c-one' } },
        { name: 'c2', queueName: name, data: { a: 2 }, opts: { jobId: 'c-two' } },
      ],
    });
    const ours = track(new Queue(name, { connection: redisOptions() }));
    const theirs = track(new BullQueue(name, { connection: redisOptions() }));
    // Complete c-one only (a worker that leaves c-two waiting: it is taken first from wait).
    const client = track(rawClient());
    await client.lrem(`bull:${name}:wait`, 0, 'c-two');
    const worker = track(
      new BullWorker(name, async () => ({ r: 1 }), { connection: redisOptions() }),
    );
    await waitFor(async () => (await theirs.getCompletedCount()) === 1);
    await worker.close();
    await client.lpush(`bull:${name}:wait`, 'c-two');

    const strip = (listing: { jobs: object[] }) => ({
      ...listing,
      jobs: listing.jobs.map((job) => {
        const { id: _id, ...rest } = job as { id?: string };
        return rest;
      }),
    });
    for (const type of ['pending', 'processed'] as const) {
      const mine = await ours.getDependencies('par', type, 0, -1);
      expect(strip(mine)).toEqual(await theirs.getDependencies('par', type, 0, -1));
      expect(mine.total).toBe(1);
    }
    const processed = await ours.getDependencies('par', 'processed', 0, 0);
    expect(processed.items).toEqual([{ id: `bull:${name}:c-one`, v: { r: 1 } }]);
    expect(processed.jobs[0]?.id).toBe('c-one');
    expect(await ours.getDependencies('par', 'pending', 1, 1)).toEqual({
      items: [],
      jobs: [],
      total: 1,
    });
    await expect(ours.getDependencies('par', 'other' as 'pending', 0, -1)).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe('bullmq base members', () => {
  it('Queue.keys answers every name of bullmq’s KeysMap with the same key', async () => {
    const { ours, theirs } = await pair('keysmap');
    const bullKeys = theirs.keys as Record<string, string>;
    for (const [name, key] of Object.entries(bullKeys)) {
      expect((ours.keys as unknown as Record<string, string>)[name], name).toBe(key);
    }
    expect(Object.keys(bullKeys).length).toBeGreaterThan(15);
  });

  it('FlowProducer waits until ready and disconnects', async () => {
    const flows = new FlowProducer({ connection: redisOptions() });
    await flows.waitUntilReady();
    await flows.disconnect();
    expect(flows.closing).toBeDefined();
    await expect(flows.add({ name: 'x', queueName: uniqueQueueName('fd') })).rejects.toBeInstanceOf(
      ClosedError,
    );
  });

  it('Queue.disconnect drops its connection', async () => {
    const queue = new Queue(uniqueQueueName('qd'), { connection: redisOptions() });
    await queue.waitUntilReady();
    await queue.disconnect();
    expect(queue.closing).toBeDefined();
    await expect(queue.add('x', {})).rejects.toBeInstanceOf(ClosedError);
  });
});

describe('Queue options', () => {
  it('accepts bullmq’s no-op switches and refuses repeat settings it cannot honour', async () => {
    const queue = track(
      new Queue(uniqueQueueName('qopts'), {
        connection: redisOptions(),
        skipVersionCheck: true,
        blockingConnection: false,
        skipWaitingForReady: true,
      }),
    );
    expect((await queue.add('x', {})).id).toBe('1');
    expect(
      () =>
        new Queue(uniqueQueueName('qopts'), {
          connection: redisOptions(),
          settings: { repeatStrategy: () => 1 },
        }),
    ).toThrow(/repeatStrategy/);
  });
});

describe('Queue local events', () => {
  it('reports a clean of waiting jobs as bullmq does, under wait', async () => {
    const { ours, theirs } = await pair('cleanedevt');
    await ours.add('a', {});
    const seen: unknown[] = [];
    const seenByThem: unknown[] = [];
    ours.on('cleaned', (ids: string[], type: string) => seen.push([ids.length, type]));
    theirs.on('cleaned', (ids: string[], type: string) => seenByThem.push([ids.length, type]));
    await ours.clean(0, 0, 'waiting');
    await theirs.clean(0, 0, 'waiting');
    expect(seen).toEqual([[1, 'wait']]);
    expect(seenByThem).toEqual([[0, 'wait']]);
  });
});
