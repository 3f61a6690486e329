/**
 * Interop with bullmq 6.7.0 for traffic control (docs/redis-keys.md). B = bullmq, N = OxMQ. Where a case says "as on B data", the same steps run on a twin
 * queue that only bullmq touches, and the two queues' Redis state is compared (stream ids and
 * wall-clock values left out; job timestamps are fixed through the `timestamp` option so that
 * delayed scores and `delayed` events compare exactly).
 */
import {
  Queue as BullQueue,
  Worker as BullWorker,
  type Job as BullJob,
  type JobsOptions as BullJobsOptions,
} from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import type { WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { collectErrors, type SharedJobsOptions } from '../helpers/interop-core';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import {
  jobKeys,
  queueKey,
  queueKeys,
  streamEntries,
  zsetWithScores,
} from '../helpers/redis-state';
import { DIRECTIONS, otherSide, sideLabel } from '../helpers/side-worker';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });
/** processedOn is the worker's clock at the call, not Redis' at the INCR (see rate-limits.test.ts). */
const CLOCK_SLACK_MS = 100;

function bullQueue(name: string): BullQueue {
  return track(new BullQueue(name, connection()));
}
function oxQueue(name: string): Queue {
  return track(new Queue(name, connection()));
}

/** Adds a job with either library; resolves with the id the add returned. */
async function addWith(
  side: WorkerSide,
  queues: { oxmq: Queue; bullmq: BullQueue },
  name: string,
  data: unknown,
  opts: SharedJobsOptions,
): Promise<string> {
  if (side === 'oxmq') return (await queues.oxmq.add(name, data, opts)).id;
  return (await queues.bullmq.add(name, data, opts as BullJobsOptions)).id ?? '';
}

interface AnyWorker {
  pause(doNotWaitActive?: boolean): Promise<void>;
  resume(): void | Promise<void>;
  close(): Promise<void>;
}

/** A worker of `side`; the processor sees the job id and data. */
function workerOf(
  side: WorkerSide,
  name: string,
  processor: (job: { id: string; data: unknown }) => Promise<unknown>,
  opts: { concurrency?: number; drainDelay?: number; metrics?: { maxDataPoints: number } } = {},
): { worker: AnyWorker; errors: Error[] } {
  const options = { ...connection(), ...opts };
  if (side === 'oxmq') {
    const worker = track(
      new Worker(name, (job: Job) => processor({ id: job.id, data: job.data }), options),
    );
    return { worker, errors: collectErrors(worker) };
  }
  const worker = track(
    new BullWorker(
      name,
      (job: BullJob) => processor({ id: job.id ?? '', data: job.data }),
      options,
    ),
  );
  return { worker, errors: collectErrors(worker) };
}

async function processedOn(redis: Redis, name: string, ids: string[]): Promise<number[]> {
  return Promise.all(
    ids.map(async (id) => Number(await redis.hget(queueKey(name, id), 'processedOn'))),
  );
}

/** Greedy fixed windows over start times: each opens at the first start not yet covered. */
function fixedWindowSizes(starts: number[], length: number): number[] {
  const windows: number[][] = [];
  for (const start of [...starts].sort((a, b) => a - b)) {
    const current = windows[windows.length - 1];
    if (current && start < current[0]! + length) current.push(start);
    else windows.push([start]);
  }
  return windows.map((w) => w.length);
}

/** The events stream as field maps, oldest first, without stream ids. */
async function events(redis: Redis, name: string): Promise<Record<string, string>[]> {
  return (await streamEntries(redis, name)).map((entry) => entry.fields);
}

/** Every job hash of the queue, `opts` parsed (key order and `\/` escapes differ by writer). */
async function jobHashes(redis: Redis, name: string): Promise<Record<string, unknown>> {
  const base = queueKey(name);
  const hashes: Record<string, unknown> = {};
  for (const key of await jobKeys(redis, name)) {
    if ((await redis.type(key)) !== 'hash') continue;
    const hash: Record<string, unknown> = await redis.hgetall(key);
    if (typeof hash.opts === 'string') hash.opts = JSON.parse(hash.opts);
    hashes[key.slice(base.length)] = hash;
  }
  return hashes;
}

/** Suffixes of every key of the queue. */
async function keySuffixes(redis: Redis, name: string): Promise<string[]> {
  const base = queueKey(name);
  return (await queueKeys(redis, name)).map((key) => key.slice(base.length));
}

async function completedCount(redis: Redis, name: string): Promise<number> {
  return redis.zcard(queueKey(name, 'completed'));
}

// ---------------------------------------------------------------------------------------------

describe('global rate limit set by B', () => {
  const MAX = 2;
  const DURATION = 1_000;

  /** One run on one queue: B sets the limit and adds 6 jobs, three workers of `sides` run them. */
  async function run(sides: WorkerSide[]) {
    const name = uniqueQueueName(`i19${sides.map(sideLabel).join('')}`);
    const redis = track(rawClient());
    const sampler = track(rawClient());
    const bq = bullQueue(name);
    const nq = oxQueue(name);
    await bq.setGlobalRateLimit(MAX, DURATION);
    expect(await redis.hgetall(queueKey(name, 'meta'))).toMatchObject({
      max: '2',
      duration: '1000',
    });
    const ids = (
      await bq.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'tick', data: { i } })))
    ).map((job) => job.id ?? '');

    let done = false;
    const samples: { counter: number; pttl: number }[] = [];
    const sampling = (async () => {
      while (!done) {
        const replies = (await sampler
          .multi()
          .get(queueKey(name, 'limiter'))
          .pttl(queueKey(name, 'limiter'))
          .exec())!;
        const counter = replies[0]![1] as string | null;
        if (counter !== null)
          samples.push({ counter: Number(counter), pttl: replies[1]![1] as number });
        await sleep(5);
      }
    })();
    const errors = sides.flatMap(
      (side) =>
        workerOf(side, name, async () => sleep(20), { concurrency: 2, drainDelay: 1 }).errors,
    );
    await waitFor(async () => (await completedCount(redis, name)) === 6, 15_000, 20);
    done = true;
    await sampling;

    // Right after the 6th start the third window is still open, its counter at max.
    const ttls = {
      bullDefault: await bq.getRateLimitTtl(),
      bullMax2: await bq.getRateLimitTtl(2),
      bullMax5: await bq.getRateLimitTtl(5),
      oxDefault: await nq.getRateLimitTtl(),
    };
    await waitFor(async () => (await redis.exists(queueKey(name, 'limiter'))) === 0, 3_000);
    const afterExpiry = { bull: await bq.getRateLimitTtl(), ox: await nq.getRateLimitTtl() };

    const starts = await processedOn(redis, name, ids);
    const sorted = [...starts].sort((a, b) => a - b);
    return {
      windows: fixedWindowSizes(starts, DURATION - CLOCK_SLACK_MS),
      span: sorted[5]! - sorted[0]!,
      samples,
      ttls,
      afterExpiry,
      errors,
    };
  }

  it('N workers (and N + B together) start at most 2 jobs per window; limiter key and getRateLimitTtl as with B workers', async () => {
    const n = await run(['oxmq', 'oxmq', 'oxmq']);
    const b = await run(['bullmq', 'bullmq', 'bullmq']);
    // And one limit shared by both libraries' workers on one queue.
    const mixed = await run(['oxmq', 'bullmq', 'oxmq']);
    for (const result of [n, b, mixed]) {
      expect(result.errors).toEqual([]);
      expect(result.windows).toEqual([2, 2, 2]);
      // Three windows: the third opens at least two durations after the first.
      expect(result.span).toBeGreaterThanOrEqual(2 * DURATION - CLOCK_SLACK_MS);
      expect(result.samples.length).toBeGreaterThan(20);
      // The counter never passes max and the key always carries an expiry of at most a window.
      expect(Math.max(...result.samples.map((s) => s.counter))).toBe(MAX);
      expect(
        result.samples.every((s) => s.pttl === -2 || (s.pttl >= 0 && s.pttl <= DURATION)),
      ).toBe(true);
      expect(result.ttls.bullDefault).toBeGreaterThan(0);
      expect(result.ttls.bullDefault).toBeLessThanOrEqual(DURATION);
      expect(result.ttls.bullMax2).toBeGreaterThan(0);
      expect(result.ttls.bullMax2).toBeLessThanOrEqual(DURATION);
      expect(result.ttls.bullMax5).toBe(0);
      expect(result.ttls.oxDefault).toBeGreaterThan(0);
      expect(Math.abs(result.ttls.oxDefault - result.ttls.bullDefault)).toBeLessThanOrEqual(100);
      expect(result.afterExpiry).toEqual({ bull: 0, ox: 0 });
    }
    // The same observable shape as the B-only twin.
    expect(n.windows).toEqual(b.windows);
    expect(mixed.windows).toEqual(b.windows);
  });
});

// ---------------------------------------------------------------------------------------------

describe('global concurrency set by B', () => {
  it('N and B workers together never exceed 1 active job (LLEN active and in-processor counts)', async () => {
    const name = uniqueQueueName('i20');
    const redis = track(rawClient());
    const sampler = track(rawClient());
    const bq = bullQueue(name);
    await bq.setGlobalConcurrency(1);
    expect(await redis.hget(queueKey(name, 'meta'), 'concurrency')).toBe('1');

    let running = 0;
    let maxRunning = 0;
    const perSide: Record<WorkerSide, string[]> = { oxmq: [], bullmq: [] };
    const workers = {} as Record<WorkerSide, AnyWorker>;
    const errors: Error[] = [];
    // Each side hands over after every third job: it pauses itself (its running job goes on)
    // and resumes the other, whose workers then try to start while that job is still active.
    for (const side of ['oxmq', 'bullmq'] as const) {
      const made = workerOf(
        side,
        name,
        async (job) => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          perSide[side].push(job.id);
          if (perSide[side].length % 3 === 0) {
            void workers[side].pause(true);
            void workers[otherSide(side)].resume();
          }
          await sleep(40);
          running--;
          return side;
        },
        { concurrency: 3, drainDelay: 1 },
      );
      workers[side] = made.worker;
      errors.push(...made.errors);
    }

    let done = false;
    let maxActive = 0;
    let samples = 0;
    const sampling = (async () => {
      while (!done) {
        maxActive = Math.max(maxActive, await sampler.llen(queueKey(name, 'active')));
        samples++;
        await sleep(2);
      }
    })();
    await bq.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: 'job', data: { i } })));
    await waitFor(async () => (await completedCount(redis, name)) === 12, 25_000, 20);
    done = true;
    await sampling;

    expect(errors).toEqual([]);
    expect(samples).toBeGreaterThan(50);
    expect(maxActive).toBe(1);
    expect(maxRunning).toBe(1);
    expect(perSide.oxmq.length).toBeGreaterThanOrEqual(3);
    expect(perSide.bullmq.length).toBeGreaterThanOrEqual(3);
  });
});

// ---------------------------------------------------------------------------------------------

describe('deduplication', () => {
  it("N adds {id:'d', ttl:2000} twice, B once more: one job, key and events as on a B-only twin", async () => {
    const x = uniqueQueueName('i22x');
    const y = uniqueQueueName('i22y');
    const redis = track(rawClient());
    const onX = { oxmq: oxQueue(x), bullmq: bullQueue(x) };
    const onY = { oxmq: oxQueue(y), bullmq: bullQueue(y) };
    const timestamp = Date.now();
    const opts: SharedJobsOptions = { deduplication: { id: 'd', ttl: 2_000 }, timestamp };

    const idsX = [
      await addWith('oxmq', onX, 'job', { n: 1 }, opts),
      await addWith('oxmq', onX, 'job', { n: 2 }, opts),
      await addWith('bullmq', onX, 'job', { n: 3 }, opts),
    ];
    const idsY = [
      await addWith('bullmq', onY, 'job', { n: 1 }, opts),
      await addWith('bullmq', onY, 'job', { n: 2 }, opts),
      await addWith('bullmq', onY, 'job', { n: 3 }, opts),
    ];

    expect(idsX).toEqual(['1', '1', '1']);
    expect(idsX).toEqual(idsY);
    for (const name of [x, y]) {
      expect(await redis.get(queueKey(name, 'de:d'))).toBe('1');
      const ttl = await redis.pttl(queueKey(name, 'de:d'));
      expect(ttl).toBeGreaterThan(1_500);
      expect(ttl).toBeLessThanOrEqual(2_000);
      expect(await redis.get(queueKey(name, 'id'))).toBe('3');
    }
    expect(await onX.bullmq.getDeduplicationJobId('d')).toBe('1');
    expect(await onX.oxmq.getDeduplicationJobId('d')).toBe('1');
    const xEvents = await events(redis, x);
    expect(xEvents.filter((e) => e.event === 'deduplicated')).toEqual([
      { event: 'deduplicated', jobId: '1', deduplicationId: 'd', deduplicatedJobId: '2' },
      { event: 'deduplicated', jobId: '1', deduplicationId: 'd', deduplicatedJobId: '3' },
    ]);
    expect(xEvents).toEqual(await events(redis, y));
    expect(await jobHashes(redis, x)).toEqual(await jobHashes(redis, y));
    expect(await keySuffixes(redis, x)).toEqual(await keySuffixes(redis, y));
    // Both libraries read the N-written job back with its deduplication id.
    expect((await onX.bullmq.getJob('1'))?.deduplicationId).toBe('d');
    expect((await onY.oxmq.getJob('1'))?.deduplicationId).toBe('d');
  });

  it('debounce (replace + extend + delay), N and B adding in turn: only the last data remains, as on a B-only twin', async () => {
    const x = uniqueQueueName('i22dx');
    const y = uniqueQueueName('i22dy');
    const redis = track(rawClient());
    const onX = { oxmq: oxQueue(x), bullmq: bullQueue(x) };
    const onY = { oxmq: oxQueue(y), bullmq: bullQueue(y) };
    const timestamp = Date.now();
    const opts: SharedJobsOptions = {
      delay: 1_000,
      timestamp,
      deduplication: { id: 'deb', ttl: 3_000, replace: true, extend: true },
    };
    const sides: WorkerSide[] = ['oxmq', 'bullmq', 'oxmq'];
    const idsX: string[] = [];
    const idsY: string[] = [];
    for (const [i, side] of sides.entries()) {
      idsX.push(await addWith(side, onX, 'job', { v: i + 1 }, opts));
      idsY.push(await addWith('bullmq', onY, 'job', { v: i + 1 }, opts));
    }
    expect(idsX).toEqual(['1', '2', '3']);
    expect(idsY).toEqual(idsX);

    for (const name of [x, y]) {
      expect(await redis.get(queueKey(name, 'de:deb'))).toBe('3');
      expect(await redis.pttl(queueKey(name, 'de:deb'))).toBeGreaterThan(2_500);
    }
    const xEvents = await events(redis, x);
    expect(xEvents.filter((e) => e.event === 'deduplicated')).toEqual([
      { event: 'deduplicated', jobId: '2', deduplicationId: 'deb', deduplicatedJobId: '1' },
      { event: 'deduplicated', jobId: '3', deduplicationId: 'deb', deduplicatedJobId: '2' },
    ]);
    expect(xEvents).toEqual(await events(redis, y));
    expect(await jobHashes(redis, x)).toEqual(await jobHashes(redis, y));
    expect(await zsetWithScores(redis, queueKey(x, 'delayed'))).toEqual(
      await zsetWithScores(redis, queueKey(y, 'delayed')),
    );
    expect(await keySuffixes(redis, x)).toEqual(await keySuffixes(redis, y));

    // Each queue is processed by the other library: both run only job 3, with the last data.
    const seen: Record<string, unknown[]> = { [x]: [], [y]: [] };
    workerOf('bullmq', x, async (job) => seen[x]!.push({ id: job.id, data: job.data }));
    workerOf('oxmq', y, async (job) => seen[y]!.push({ id: job.id, data: job.data }));
    await waitFor(
      async () => (await completedCount(redis, x)) === 1 && (await completedCount(redis, y)) === 1,
      10_000,
    );
    expect(seen[x]).toEqual([{ id: '3', data: { v: 3 } }]);
    expect(seen[y]).toEqual([{ id: '3', data: { v: 3 } }]);
  });

  it('reschedule: N-written state equals the B-only twin', async () => {
    const x = uniqueQueueName('i22rx');
    const y = uniqueQueueName('i22ry');
    const redis = track(rawClient());
    const onX = { oxmq: oxQueue(x), bullmq: bullQueue(x) };
    const onY = { oxmq: oxQueue(y), bullmq: bullQueue(y) };
    const t0 = Date.now();
    const adds: [unknown, SharedJobsOptions][] = [
      [{ v: 1 }, { delay: 60_000, timestamp: t0, deduplication: { id: 'r', reschedule: true } }],
      [{ v: 2 }, { delay: 5_000, timestamp: t0 + 5, deduplication: { id: 'r', reschedule: true } }],
    ];
    for (const [data, opts] of adds) {
      await addWith('oxmq', onX, 'job', data, opts);
      await addWith('bullmq', onY, 'job', data, opts);
    }
    expect(await redis.get(queueKey(x, 'de:r'))).toBe('1');
    expect(await redis.hget(queueKey(x, '1'), 'delay')).toBe('5000');
    expect(await zsetWithScores(redis, queueKey(x, 'delayed'))).toEqual(
      await zsetWithScores(redis, queueKey(y, 'delayed')),
    );
    expect(await jobHashes(redis, x)).toEqual(await jobHashes(redis, y));
    expect(await events(redis, x)).toEqual(await events(redis, y));
    expect(await keySuffixes(redis, x)).toEqual(await keySuffixes(redis, y));
  });

  describe.each(DIRECTIONS)(
    'simple mode, $producer adds, $consumer completes',
    ({ producer, consumer }) => {
      it('the key is removed when the owner completes on the other engine', async () => {
        const name = uniqueQueueName('i22s');
        const redis = track(rawClient());
        const queues = { oxmq: oxQueue(name), bullmq: bullQueue(name) };
        const opts: SharedJobsOptions = { deduplication: { id: 's' } };
        const first = await addWith(producer, queues, 'job', {}, opts);
        expect(await addWith(producer, queues, 'job', {}, opts)).toBe(first);
        expect(await redis.get(queueKey(name, 'de:s'))).toBe(first);
        expect(await redis.pttl(queueKey(name, 'de:s'))).toBe(-1);

        const { errors } = workerOf(consumer, name, async () => 'done');
        await waitFor(async () => (await completedCount(redis, name)) === 1, 10_000);
        expect(await redis.exists(queueKey(name, 'de:s'))).toBe(0);
        expect(errors).toEqual([]);

        const next = await addWith(producer, queues, 'job', {}, opts);
        expect(next).not.toBe(first);
        expect(await redis.get(queueKey(name, 'de:s'))).toBe(next);
      });
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('B manages delayed jobs written by N', () => {
  /** Due ts of each delayed member. */
  async function delayedDue(redis: Redis, name: string): Promise<[string, number][]> {
    return (await zsetWithScores(redis, queueKey(name, 'delayed'))).map(([id, score]) => [
      id,
      Math.floor(Number(score) / 4096),
    ]);
  }

  /** The state both queues must share; `delay` of a changeDelay event is wall-clock, so apart. */
  async function snapshot(redis: Redis, name: string) {
    const all = await events(redis, name);
    const changed = all.filter((e) => e.event === 'delayed' && e.jobId === 'b');
    return {
      wait: await redis.lrange(queueKey(name, 'wait'), 0, -1),
      prioritized: await zsetWithScores(redis, queueKey(name, 'prioritized')),
      delayedIds: (await delayedDue(redis, name)).map(([id]) => id),
      hashes: await jobHashes(redis, name),
      events: all.map((e) => (e.event === 'delayed' && e.jobId === 'b' ? { ...e, delay: '~' } : e)),
      changedDue: changed.map((e) => Number(e.delay)),
      due: await delayedDue(redis, name),
    };
  }

  it('promote, changeDelay, changePriority, promoteJobs: same state and processing order as on B data', async () => {
    const x = uniqueQueueName('i25x');
    const y = uniqueQueueName('i25y');
    const redis = track(rawClient());
    const onX = { oxmq: oxQueue(x), bullmq: bullQueue(x) };
    const onY = { oxmq: oxQueue(y), bullmq: bullQueue(y) };
    const timestamp = Date.now();
    const jobs: [string, SharedJobsOptions][] = [
      ['a', {}],
      ['b', {}],
      ['c', {}],
      ['d', { priority: 3 }],
      ['e', {}],
    ];
    for (const [jobId, extra] of jobs) {
      const opts = { jobId, delay: 60_000, timestamp, ...extra };
      await addWith('oxmq', onX, jobId, { jobId }, opts);
      await addWith('bullmq', onY, jobId, { jobId }, opts);
    }

    const steps: [string, (q: BullQueue) => Promise<void>][] = [
      ['promote a', async (q) => (await q.getJob('a'))!.promote()],
      ['changeDelay b', async (q) => (await q.getJob('b'))!.changeDelay(120_000)],
      [
        'changePriority c (delayed)',
        async (q) => (await q.getJob('c'))!.changePriority({ priority: 5 }),
      ],
      ['promote d (priority 3)', async (q) => (await q.getJob('d'))!.promote()],
    ];
    for (const [, step] of steps) {
      await step(onX.bullmq);
      await step(onY.bullmq);
    }
    const first = { x: await snapshot(redis, x), y: await snapshot(redis, y) };
    expect(first.x.wait).toEqual(['a']);
    expect(first.x.delayedIds).toEqual(['c', 'e', 'b']);
    expect(first.x.hashes.c).toMatchObject({ priority: '5' });
    const { changedDue: dueX, due: fullDueX, ...restX } = first.x;
    const { changedDue: dueY, due: fullDueY, ...restY } = first.y;
    expect(restX).toEqual(restY);
    expect(fullDueX.slice(0, 2)).toEqual(fullDueY.slice(0, 2));
    expect(dueX).toHaveLength(2);
    expect(Math.abs(dueX[1]! - dueY[1]!)).toBeLessThan(1_000);

    for (const q of [onX.bullmq, onY.bullmq]) {
      await q.promoteJobs();
      await (await q.getJob('a'))!.changePriority({ priority: 1 });
    }
    const second = { x: await snapshot(redis, x), y: await snapshot(redis, y) };
    expect(second.x.delayedIds).toEqual([]);
    const withoutClock = ({ changedDue: _changed, due: _due, ...rest }: typeof second.x) => rest;
    expect(withoutClock(second.x)).toEqual(withoutClock(second.y));

    // N runs the N-written queue, B the twin: the same order.
    const order: Record<string, string[]> = { [x]: [], [y]: [] };
    workerOf('oxmq', x, async (job) => order[x]!.push(job.id));
    workerOf('bullmq', y, async (job) => order[y]!.push(job.id));
    await waitFor(
      async () => (await completedCount(redis, x)) === 5 && (await completedCount(redis, y)) === 5,
      10_000,
    );
    expect(order[x]).toEqual(order[y]);
    expect(order[x]).toEqual(['c', 'e', 'b', 'a', 'd']);
  });
});

// ---------------------------------------------------------------------------------------------

describe('metrics', () => {
  /** Waits while the current minute is about to end, so "same minute" steps stay in one minute. */
  async function awayFromMinuteEdge(budgetMs: number): Promise<void> {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 60_000 - budgetMs) await sleep(60_000 - intoMinute + 250);
  }

  /** Runs the scripted steps on one queue with one library's worker; returns B's view after each. */
  async function run(side: WorkerSide) {
    const name = uniqueQueueName(`i28${sideLabel(side)}`);
    const redis = track(rawClient());
    const bq = bullQueue(name);
    const nq = oxQueue(name);
    const { errors } = workerOf(
      side,
      name,
      async (job) => {
        if ((job.data as { fail?: boolean }).fail) throw new Error('boom');
        return 'ok';
      },
      { metrics: { maxDataPoints: 5 }, drainDelay: 1 },
    );
    const metricsKey = queueKey(name, 'metrics:completed');
    let total = 0;
    const complete = async (n: number) => {
      await bq.addBulk(Array.from({ length: n }, () => ({ name: 'm', data: {} })));
      total += n;
      await waitFor(async () => (await completedCount(redis, name)) === total, 10_000, 10);
    };
    const movePrevTsBack = async (minutes: number) => {
      const prevTS = Number(await redis.hget(metricsKey, 'prevTS'));
      await redis.hset(metricsKey, 'prevTS', prevTS - minutes * 60_000);
    };

    const views: { step: string; b: unknown; n: unknown }[] = [];
    const record = async (step: string) => {
      const b = await bq.getMetrics('completed');
      const n = await nq.getMetrics('completed');
      expect(Math.abs(b.meta.prevTS - Date.now())).toBeLessThan(30_000);
      views.push({
        step,
        b: { ...b, meta: { ...b.meta, prevTS: 'now' } },
        n: {
          ...n,
          meta: { ...n.meta, prevTS: n.meta.prevTS === b.meta.prevTS ? 'now' : n.meta.prevTS },
        },
      });
    };

    await complete(1);
    await record('first job: prevTS set, no data');
    await complete(2);
    await record('same minute');
    await movePrevTsBack(3);
    await complete(1);
    await record('3 minutes later');
    await movePrevTsBack(1);
    await complete(2);
    await record('1 minute later, then the same minute');
    await movePrevTsBack(20);
    await complete(1);
    await record('20 minutes later, capped at maxDataPoints');

    await bq.add('m', { fail: true });
    await waitFor(async () => (await redis.zcard(queueKey(name, 'failed'))) === 1, 10_000);
    const failed = await bq.getMetrics('failed');
    expect(errors).toEqual([]);
    return {
      views,
      failed: { ...failed, meta: { ...failed.meta, prevTS: failed.meta.prevTS > 0 } },
    };
  }

  it('an N worker writes per-minute metrics that B getMetrics reads exactly as from a B worker', async () => {
    await awayFromMinuteEdge(20_000);
    const n = await run('oxmq');
    const b = await run('bullmq');
    // What a B worker produces (docs/redis-keys.md).
    expect(b.views.map((v) => v.b)).toEqual([
      { meta: { count: 1, prevTS: 'now', prevCount: 0 }, data: [], count: 0 },
      { meta: { count: 3, prevTS: 'now', prevCount: 0 }, data: [], count: 0 },
      { meta: { count: 4, prevTS: 'now', prevCount: 3 }, data: [0, 0, 3], count: 3 },
      { meta: { count: 6, prevTS: 'now', prevCount: 4 }, data: [1, 0, 0, 3], count: 4 },
      { meta: { count: 7, prevTS: 'now', prevCount: 6 }, data: [0, 0, 0, 0, 2], count: 5 },
    ]);
    expect(n.views.map((v) => v.b)).toEqual(b.views.map((v) => v.b));
    // OxMQ's getMetrics reads the same as bullmq's, on either writer's data.
    for (const view of [...n.views, ...b.views]) expect(view.n).toEqual(view.b);
    expect(n.failed).toEqual(b.failed);
    expect(n.failed).toEqual({
      meta: { count: 1, prevTS: true, prevCount: 0 },
      data: [],
      count: 0,
    });
  }, 90_000);

  // bullmq's docs suggest maxDataPoints: MetricsTime.ONE_WEEK * 2 (20160). After ten idle days
  // one finishing job writes 14400 points at once: more than Lua's unpack() takes in one call.
  it('a ten-day gap with maxDataPoints 20160: the same 14400 points as a B worker writes', async () => {
    const runGap = async (side: WorkerSide) => {
      const name = uniqueQueueName(`i28g${sideLabel(side)}`);
      const redis = track(rawClient());
      const bq = bullQueue(name);
      const { errors } = workerOf(side, name, async () => 'ok', {
        metrics: { maxDataPoints: 20_160 },
        drainDelay: 1,
      });
      await bq.add('m', {});
      await waitFor(async () => (await completedCount(redis, name)) === 1, 10_000);
      const metricsKey = queueKey(name, 'metrics:completed');
      const prevTS = Number(await redis.hget(metricsKey, 'prevTS'));
      await redis.hset(metricsKey, 'prevTS', prevTS - 14_400 * 60_000);
      await bq.add('m', {});
      await waitFor(async () => (await completedCount(redis, name)) === 2, 10_000);
      const metrics = await bq.getMetrics('completed');
      expect(errors).toEqual([]);
      return { ...metrics, meta: { ...metrics.meta, prevTS: metrics.meta.prevTS > prevTS } };
    };
    const b = await runGap('bullmq');
    expect(b.count).toBe(14_400);
    expect(b.data[14_399]).toBe(1);
    expect(b.data.slice(0, 14_399).every((point) => point === 0)).toBe(true);
    expect(b.meta).toEqual({ count: 2, prevTS: true, prevCount: 1 });
    expect(await runGap('oxmq')).toEqual(b);
  }, 60_000);
});
