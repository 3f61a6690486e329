/**
 * Interop with the real bullmq 6.7.0, docs/redis-keys.md (B = bullmq, N = OxMQ):
 * 1. B producer → N worker, observed by B QueueEvents and B job.waitUntilFinished.
 * 2. N producer → B worker: B reads exactly what N wrote; counts before/after.
 * 3. Byte compatibility of everything an add writes (hashes, counters, scores, markers, events).
 */
import { readFileSync } from 'node:fs';
import { Queue as BullQueue, QueueEvents as BullQueueEvents, Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { OXMQ_VERSION, Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { type SharedJobsOptions, collectErrors } from '../helpers/interop-core';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { queueKey, streamEntries, zsetWithScores } from '../helpers/redis-state';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

describe('interop: bullmq producer → OxMQ worker', () => {
  it('processes a bullmq job; bullmq QueueEvents and waitUntilFinished see the outcome', async () => {
    const name = uniqueQueueName('i1');
    const redis = track(rawClient());
    const bq = track(new BullQueue(name, connection()));
    const bqe = track(new BullQueueEvents(name, connection()));
    await bqe.waitUntilReady();
    const observed: string[] = [];
    const returnValues: unknown[] = [];
    bqe.on('active', ({ jobId, prev }) => observed.push(`active:${jobId}:${prev ?? ''}`));
    bqe.on('completed', ({ jobId, returnvalue }) => {
      observed.push(`completed:${jobId}`);
      returnValues.push(returnvalue);
    });

    const job = await bq.add('a', { x: 1 });
    const jobId = job.id!;
    const finished = job.waitUntilFinished(bqe, 20_000);

    const dataSeen: unknown[] = [];
    const worker = track(
      new Worker(
        name,
        async (j: Job<{ x: number }>) => {
          dataSeen.push(j.data);
          return { sum: j.data.x + 1, tag: 'oxmq' };
        },
        connection(),
      ),
    );
    const errors = collectErrors(worker);

    await expect(finished).resolves.toEqual({ sum: 2, tag: 'oxmq' });
    await waitFor(() => observed.some((e) => e.startsWith('completed:')));

    expect(dataSeen).toEqual([{ x: 1 }]);
    expect(observed).toEqual([`active:${jobId}:waiting`, `completed:${jobId}`]);
    expect(returnValues).toEqual([{ sum: 2, tag: 'oxmq' }]);

    const hash = await redis.hgetall(queueKey(name, jobId));
    expect(hash.returnvalue).toBe('{"sum":2,"tag":"oxmq"}');
    expect(hash.atm).toBe('1');
    expect(hash.ats).toBe('1');
    expect(hash.finishedOn).toBeDefined();
    expect(await redis.zscore(queueKey(name, 'completed'), jobId)).toBe(hash.finishedOn);
    expect(Number(hash.processedOn)).toBeLessThanOrEqual(Number(hash.finishedOn));
    expect(await redis.exists(queueKey(name, `${jobId}:lock`))).toBe(0);
    expect(await redis.llen(queueKey(name, 'active'))).toBe(0);
    expect(await redis.sismember(queueKey(name, 'stalled'), jobId)).toBe(0);

    // bullmq reads the finished job back as its own.
    const read = await bq.getJob(jobId);
    expect(read?.returnvalue).toEqual({ sum: 2, tag: 'oxmq' });
    expect(read?.attemptsMade).toBe(1);
    expect(read?.finishedOn).toBe(Number(hash.finishedOn));
    expect(await bq.getJobState(jobId)).toBe('completed');
    expect(errors).toEqual([]);
  });
});

describe('interop: OxMQ producer → bullmq worker', () => {
  it('bullmq reads name, data and opts exactly as OxMQ wrote them, and counts agree', async () => {
    const name = uniqueQueueName('i2');
    const twinName = uniqueQueueName('i2twin');
    const nq = track(new Queue(name, connection()));
    const bq = track(new BullQueue(name, connection()));
    const bTwin = track(new BullQueue(twinName, connection()));
    const timestamp = Date.now();
    const opts: SharedJobsOptions = {
      jobId: 'n-job-1',
      attempts: 2,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { count: 10 },
      removeOnFail: 3,
      keepLogs: 4,
      stackTraceLimit: 5,
      timestamp,
    };
    const data = { text: 'hé', list: [1, 2, 3], nested: { ok: true, none: null } };

    const added = await nq.add('n2', data, opts);
    const prioritized = await nq.add('n2-prio', { p: 1 }, { priority: 2 });
    const delayed = await nq.add('n2-later', { d: 1 }, { delay: 60_000 });
    expect(added.id).toBe('n-job-1');

    // A bullmq-written twin of the first job is the oracle for what bullmq reads back.
    const twin = await bTwin.add('n2', data, opts);
    const read = await bq.getJob(added.id);
    const twinRead = await bTwin.getJob(twin.id!);
    expect(read).toBeDefined();
    expect(read!.name).toBe('n2');
    expect(read!.data).toEqual(data);
    expect(read!.timestamp).toBe(timestamp);
    expect(read!.opts).toEqual(twinRead!.opts);
    expect(read!.opts).toEqual({
      jobId: 'n-job-1',
      attempts: 2,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { count: 10 },
      removeOnFail: 3,
      keepLogs: 4,
      stackTraceLimit: 5,
      timestamp,
    });
    expect(read!.delay).toBe(twinRead!.delay);
    expect(read!.priority).toBe(0);
    expect((await bq.getJob(prioritized.id))?.priority).toBe(2);
    expect((await bq.getJob(delayed.id))?.delay).toBe(60_000);

    const before = {
      active: 0,
      completed: 0,
      delayed: 1,
      failed: 0,
      prioritized: 1,
      waiting: 1,
      'waiting-children': 0,
    };
    expect(await bq.getJobCounts()).toEqual(before);
    expect(await nq.getJobCounts()).toEqual(before);
    expect(await bq.getJobState(added.id)).toBe('waiting');
    expect(await bq.getJobState(prioritized.id)).toBe('prioritized');
    expect(await bq.getJobState(delayed.id)).toBe('delayed');

    const processed: { id: string; data: unknown; opts: unknown }[] = [];
    const worker = track(
      new BullWorker(
        name,
        async (job) => {
          processed.push({ id: job.id!, data: job.data, opts: job.opts });
          return { by: 'bullmq', id: job.id };
        },
        connection(),
      ),
    );
    const errors = collectErrors(worker);
    await waitFor(async () => (await bq.getCompletedCount()) === 2);

    expect(processed.map((p) => p.id)).toEqual([added.id, prioritized.id]);
    expect(processed[0]!.data).toEqual(data);
    expect(processed[0]!.opts).toEqual(read!.opts);
    const after = { ...before, completed: 2, prioritized: 0, waiting: 0 };
    expect(await bq.getJobCounts()).toEqual(after);
    expect(await nq.getJobCounts()).toEqual(after);

    // OxMQ reads bullmq's outcome back.
    const done = await nq.getJob(added.id);
    expect(done?.returnvalue).toEqual({ by: 'bullmq', id: added.id });
    expect(done?.attemptsMade).toBe(1);
    expect(await nq.getJobState(added.id)).toBe('completed');
    expect(errors).toEqual([]);
  });
});

describe('interop: hash byte-compatibility of adds', () => {
  /** The same adds, in the same order, for both libraries. */
  function jobsToAdd(
    timestamp: number,
  ): { name: string; data: unknown; opts: SharedJobsOptions }[] {
    return [
      {
        name: 'std',
        data: { a: 1 },
        opts: {
          attempts: 3,
          backoff: 1000,
          removeOnComplete: { age: 3600, count: 10 },
          removeOnFail: 5,
          keepLogs: 7,
          timestamp,
        },
      },
      {
        name: 'prio',
        data: { b: 2 },
        opts: { priority: 5, attempts: 2, backoff: { type: 'exponential', delay: 250 }, timestamp },
      },
      // lifo is ignored for prioritized jobs.
      { name: 'prio-lifo', data: { b: 3 }, opts: { priority: 5, lifo: true, timestamp } },
      { name: 'prio-low', data: { b: 4 }, opts: { priority: 1, timestamp } },
      {
        name: 'delayed',
        data: { c: 3 },
        opts: { delay: 60_000, removeOnComplete: true, removeOnFail: false, timestamp },
      },
      // Due in the same millisecond as the previous one: sequence 1 in the score.
      { name: 'delayed-same-ms', data: { c: 4 }, opts: { delay: 60_000, timestamp } },
      { name: 'delayed-prio', data: { c: 5 }, opts: { delay: 90_000, priority: 3, timestamp } },
      { name: 'lifo', data: { d: 4 }, opts: { lifo: true, jobId: 'custom-1', timestamp } },
      {
        name: 'no-data',
        data: undefined,
        opts: { jobId: 'custom-2', removeOnFail: { age: 60, count: 2, limit: 5 }, timestamp },
      },
      { name: 'fifo', data: { e: [1, 'two', { three: 3 }], s: 'ü é' }, opts: { timestamp } },
      // A duplicate custom id: nothing stored, but the counter moves and `duplicated` is emitted.
      { name: 'lifo', data: { d: 5 }, opts: { jobId: 'custom-1', timestamp } },
      {
        name: 'limits',
        data: { f: 1 },
        opts: { stackTraceLimit: 3, sizeLimit: 1000, attempts: 1, timestamp },
      },
    ];
  }

  it('writes the same hashes, counters, scores, markers and events as bullmq', async () => {
    const bName = uniqueQueueName('i3b');
    const nName = uniqueQueueName('i3n');
    const redis = track(rawClient());
    const bq = track(new BullQueue(bName, connection()));
    const nq = track(new Queue(nName, connection()));
    const timestamp = Date.now();

    const bIds: string[] = [];
    const nIds: string[] = [];
    for (const job of jobsToAdd(timestamp)) {
      // bullmq's typings want a name/data pair; both sides get identical arguments.
      bIds.push((await bq.add(job.name, job.data, job.opts)).id!);
      nIds.push((await nq.add(job.name, job.data, job.opts)).id);
    }
    expect(nIds).toEqual(bIds);

    for (const id of new Set(bIds)) {
      const bHash = await redis.hgetall(queueKey(bName, id));
      const nHash = await redis.hgetall(queueKey(nName, id));
      expect(Object.keys(nHash).sort(), `fields of job ${id}`).toEqual(Object.keys(bHash).sort());
      const { opts: bOpts, ...bRest } = bHash;
      const { opts: nOpts, ...nRest } = nHash;
      expect(nRest, `hash of job ${id}`).toEqual(bRest);
      expect(JSON.parse(nOpts ?? 'null'), `opts of job ${id}`).toEqual(JSON.parse(bOpts ?? 'null'));
    }

    expect(await redis.get(queueKey(nName, 'id'))).toBe(await redis.get(queueKey(bName, 'id')));
    expect(await redis.get(queueKey(nName, 'id'))).toBe(String(jobsToAdd(0).length));
    expect(await redis.get(queueKey(nName, 'pc'))).toBe(await redis.get(queueKey(bName, 'pc')));
    expect(await redis.lrange(queueKey(nName, 'wait'), 0, -1)).toEqual(
      await redis.lrange(queueKey(bName, 'wait'), 0, -1),
    );
    for (const set of ['prioritized', 'delayed', 'marker']) {
      expect(await zsetWithScores(redis, queueKey(nName, set)), set).toEqual(
        await zsetWithScores(redis, queueKey(bName, set)),
      );
    }
    // Spot-check the encodings themselves, not only the agreement.
    const due = timestamp + 60_000;
    expect(await redis.zscore(queueKey(nName, 'delayed'), '5')).toBe(String(due * 4096));
    expect(await redis.zscore(queueKey(nName, 'delayed'), '6')).toBe(String(due * 4096 + 1));
    expect(await redis.zscore(queueKey(nName, 'prioritized'), '2')).toBe(String(5 * 2 ** 32 + 1));
    expect(await redis.zscore(queueKey(nName, 'marker'), '1')).toBe(String(due));
    expect(await redis.zscore(queueKey(nName, 'marker'), '0')).toBe('0');

    const bEvents = (await streamEntries(redis, bName)).map((e) => e.fields);
    const nEvents = (await streamEntries(redis, nName)).map((e) => e.fields);
    expect(nEvents).toEqual(bEvents);
    expect(nEvents.some((e) => e.event === 'duplicated' && e.jobId === 'custom-1')).toBe(true);

    // Meta: same fields, each library signing the version with its own name.
    await waitFor(async () => (await redis.hget(queueKey(bName, 'meta'), 'version')) !== null);
    const { version: bVersion, ...bMeta } = await redis.hgetall(queueKey(bName, 'meta'));
    const { version: nVersion, ...nMeta } = await redis.hgetall(queueKey(nName, 'meta'));
    expect(nMeta).toEqual(bMeta);
    expect(bVersion).toBe('bullmq:6.7.0');
    expect(nVersion).toBe(`bullmq-oxmq:${OXMQ_VERSION}`);
  });

  it('addBulk writes the same state as bullmq addBulk', async () => {
    const bName = uniqueQueueName('i3bulkb');
    const nName = uniqueQueueName('i3bulkn');
    const redis = track(rawClient());
    const bq = track(new BullQueue(bName, connection()));
    const nq = track(new Queue(nName, connection()));
    const jobs = jobsToAdd(Date.now()).filter((job) => job.opts.jobId !== 'custom-1');
    const bIds = (await bq.addBulk(jobs)).map((job) => job.id!);
    const nIds = (await nq.addBulk(jobs)).map((job) => job.id);
    expect(nIds).toEqual(bIds);
    for (const id of bIds) {
      const { opts: bOpts, ...bRest } = await redis.hgetall(queueKey(bName, id));
      const { opts: nOpts, ...nRest } = await redis.hgetall(queueKey(nName, id));
      expect(nRest, `hash of job ${id}`).toEqual(bRest);
      expect(JSON.parse(nOpts ?? 'null'), `opts of job ${id}`).toEqual(JSON.parse(bOpts ?? 'null'));
    }
    expect(await redis.get(queueKey(nName, 'id'))).toBe(await redis.get(queueKey(bName, 'id')));
    expect(await redis.lrange(queueKey(nName, 'wait'), 0, -1)).toEqual(
      await redis.lrange(queueKey(bName, 'wait'), 0, -1),
    );
    for (const set of ['prioritized', 'delayed', 'marker']) {
      expect(await zsetWithScores(redis, queueKey(nName, set)), set).toEqual(
        await zsetWithScores(redis, queueKey(bName, set)),
      );
    }
    expect((await streamEntries(redis, nName)).map((e) => e.fields)).toEqual(
      (await streamEntries(redis, bName)).map((e) => e.fields),
    );
  });

  it('OxMQ signs meta.version with its package version; bullmq overwrites it with its own', async () => {
    const name = uniqueQueueName('i3meta');
    const redis = track(rawClient());
    const nq = track(new Queue(name, connection()));
    await nq.waitUntilReady();
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    expect(await redis.hget(queueKey(name, 'meta'), 'version')).toBe(`bullmq-oxmq:${pkg.version}`);
    expect(await redis.hget(queueKey(name, 'meta'), 'opts.maxLenEvents')).toBe('10000');
    expect(await nq.getVersion()).toBe(`bullmq-oxmq:${pkg.version}`);

    const bq = track(new BullQueue(name, connection()));
    await waitFor(async () => (await bq.getVersion()) === 'bullmq:6.7.0');
    expect(await nq.getVersion()).toBe('bullmq:6.7.0');
    // Ours never writes the field when told not to (bullmq's skipMetasUpdate).
    const quiet = uniqueQueueName('i3quiet');
    const silent = track(new Queue(quiet, { ...connection(), skipMetasUpdate: true }));
    await silent.add('x', {});
    expect(await redis.hget(queueKey(quiet, 'meta'), 'version')).toBeNull();
  });
});
