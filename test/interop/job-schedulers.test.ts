/**
 * docs/redis-keys.md both ways (B = bullmq 6.7.0, N = OxMQ): a scheduler created by one library
 * keeps running on the other's workers (every and cron + tz), removal by one stops the other,
 * and the scheduler hash and iteration jobs each side writes are byte-compatible.
 */
import type { EventEmitter } from 'node:events';
import { Queue as BullQueue, Worker as BullWorker, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { queueKey } from '../helpers/redis-state';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import {
  gaps,
  iterationIds,
  iterationMillis,
  jobHashWithOpts,
  placeOf,
  runMillis,
  schedulerHash,
  schedulerScore,
  type SeenRun,
} from '../helpers/scheduler-state';

const track = useCleanup();
type Side = 'bullmq' | 'oxmq';

function queues(name: string) {
  return {
    bq: track(new BullQueue(name, { connection: redisOptions() })),
    q: track(new Queue(name, { connection: redisOptions() })),
  };
}

/** Two workers of one side that record each run they start. */
function startWorkers(side: Side, name: string, runs: SeenRun[], count = 2): Error[] {
  const errors: Error[] = [];
  for (let i = 0; i < count; i++) {
    const record = async (job: Job | BullJob) => {
      runs.push({ id: job.id!, rjk: job.repeatJobKey, startedAt: Date.now() });
    };
    // Typed as the EventEmitter both are: their own on() overloads do not combine in a union.
    const worker: EventEmitter =
      side === 'bullmq'
        ? track(new BullWorker(name, record, { connection: redisOptions() }))
        : track(new Worker(name, record, { connection: redisOptions() }));
    worker.on('error', (error: Error) => errors.push(error));
  }
  return errors;
}

/** Lets `runs` reach `count` runs of `schedulerId`, sampling the zset score on the way. */
async function runUntil(
  redis: Redis,
  name: string,
  schedulerId: string,
  runs: SeenRun[],
  count: number,
): Promise<number[]> {
  const scores: number[] = [];
  await waitFor(async () => {
    const score = await schedulerScore(redis, name, schedulerId);
    if (score !== null && scores.at(-1) !== score) scores.push(score);
    return runMillis(runs, schedulerId).length >= count;
  }, 20_000);
  return scores;
}

/** After removal on one side: at most the run already starting, then nothing pending. */
async function expectStopped(redis: Redis, name: string, sid: string, runs: SeenRun[]) {
  const atRemoval = runs.length;
  await sleep(1800);
  expect(runs.length).toBeLessThanOrEqual(atRemoval + 1);
  expect(await schedulerScore(redis, name, sid)).toBeNull();
  expect(await redis.exists(queueKey(name, `repeat:${sid}`))).toBe(0);
  for (const id of await iterationIds(redis, name, sid)) {
    expect(['completed', 'active']).toContain(await placeOf(redis, name, id));
  }
}

const directions: [string, Side, Side][] = [
  ['B schedules, N workers run it', 'bullmq', 'oxmq'],
  ['N schedules, B workers run it', 'oxmq', 'bullmq'],
];

describe.each(directions)('%s', (_label, producer, consumer) => {
  it('every 1000: ≥3 iterations 1 s apart, ic and score advance, removal stops it', async () => {
    const name = uniqueQueueName('sch-every');
    const { bq, q } = queues(name);
    const redis = track(rawClient());
    const runs: SeenRun[] = [];
    const errors = startWorkers(consumer, name, runs);
    const first =
      producer === 'bullmq'
        ? await bq.upsertJobScheduler('s', { every: 1000 }, { name: 't', data: {} })
        : await q.upsertJobScheduler('s', { every: 1000 }, { name: 't', data: {} });
    const m0 = iterationMillis(first!.id!);
    const scores = await runUntil(redis, name, 's', runs, 3);
    const millis = runMillis(runs, 's');
    expect(millis.slice(0, 3)).toEqual([m0, m0 + 1000, m0 + 2000]);
    expect(runs.slice(0, 3).map((r) => r.id)).toEqual(
      millis.slice(0, 3).map((m) => `repeat:s:${m}`),
    );
    expect(gaps(scores).every((gap) => gap === 1000)).toBe(true);
    const score = (await schedulerScore(redis, name, 's'))!;
    expect(score).toBeGreaterThanOrEqual(m0 + 3000);
    const hash = await schedulerHash(redis, name, 's');
    expect(Number(hash.ic)).toBe((score - m0) / 1000 + 1);
    for (const id of millis.slice(0, 3).map((m) => `repeat:s:${m}`)) {
      expect(await redis.hget(queueKey(name, id), 'rjk')).toBe('s');
    }
    // bullmq's listing shows the next run, read from whichever side wrote it.
    const listed = await bq.getJobSchedulers();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ key: 's', name: 't', every: 1000 });
    expect(listed[0]!.next).toBe(await schedulerScore(redis, name, 's'));
    // The other library removes it; the consumer stops.
    if (producer === 'bullmq') expect(await q.removeJobScheduler('s')).toBe(true);
    else expect(await bq.removeJobScheduler('s')).toBe(true);
    await expectStopped(redis, name, 's', runs);
    expect(errors).toEqual([]);
  });

  it('cron pattern + tz: ≥3 iterations on whole seconds, removal stops it', async () => {
    const name = uniqueQueueName('sch-cron');
    const { bq, q } = queues(name);
    const redis = track(rawClient());
    const runs: SeenRun[] = [];
    const errors = startWorkers(consumer, name, runs);
    const repeat = { pattern: '* * * * * *', tz: 'Europe/Paris' };
    const template = { name: 'ct', data: { k: 1 } };
    const first =
      producer === 'bullmq'
        ? await bq.upsertJobScheduler('c', repeat, template)
        : await q.upsertJobScheduler('c', repeat, template);
    const m0 = iterationMillis(first!.id!);
    expect(m0 % 1000).toBe(0);
    await runUntil(redis, name, 'c', runs, 3);
    const millis = runMillis(runs, 'c');
    expect(millis.slice(0, 3)).toEqual([m0, m0 + 1000, m0 + 2000]);
    for (const run of runs) expect(run.startedAt).toBeGreaterThanOrEqual(iterationMillis(run.id));
    const hash = await schedulerHash(redis, name, 'c');
    expect(hash).toMatchObject({ name: 'ct', pattern: '* * * * * *', tz: 'Europe/Paris' });
    const score = (await schedulerScore(redis, name, 'c'))!;
    expect(Number(hash.ic)).toBe((score - m0) / 1000 + 1);
    const third = await jobHashWithOpts(redis, name, `repeat:c:${m0 + 2000}`);
    expect(third.hash.data).toBe('{"k":1}');
    expect(third.opts).toMatchObject({ prevMillis: m0 + 2000, repeat: { ...repeat, count: 3 } });
    expect((await bq.getJobScheduler('c'))?.next).toBe(score);
    if (producer === 'bullmq') expect(await q.removeJobScheduler('c')).toBe(true);
    else expect(await bq.removeJobScheduler('c')).toBe(true);
    await expectStopped(redis, name, 'c', runs);
    expect(errors).toEqual([]);
  });
});

/** Fields a run adds, which depend on whether and when the iteration ran. */
const RUN_FIELDS = new Set(['processedOn', 'finishedOn', 'atm', 'ats', 'returnvalue', 'pb']);

/** Job hash minus the fields that depend on when it was written or run. */
function stable(hash: Record<string, string>, opts: Record<string, unknown>) {
  const rest: Record<string, string> = {};
  for (const [field, value] of Object.entries(hash)) {
    if (!RUN_FIELDS.has(field) && !['timestamp', 'delay', 'opts'].includes(field)) {
      rest[field] = value;
    }
  }
  const { timestamp: _t, delay: _d, ...restOpts } = opts;
  const fields = Object.keys(hash)
    .filter((field) => !RUN_FIELDS.has(field))
    .sort();
  return { fields, rest, opts: restOpts };
}

describe('byte compatibility', () => {
  /** The same upserts by B on one queue and N on another, at fixed instants. */
  async function upsertBoth(startDate: number, endDate: number) {
    const bName = uniqueQueueName('sch-b');
    const nName = uniqueQueueName('sch-n');
    const bq = track(new BullQueue(bName, { connection: redisOptions() }));
    const q = track(new Queue(nName, { connection: redisOptions() }));
    const template = {
      name: 'tmpl',
      data: { a: 1, path: 'x/y' },
      opts: { attempts: 3, backoff: 1000, removeOnComplete: 5, priority: 2, keepLogs: 4 },
    };
    const every = { every: 1000, startDate, endDate, limit: 50 };
    const cron = { pattern: '*/2 * * * * *', tz: 'Asia/Tokyo', startDate, endDate, limit: 50 };
    const bJobs = [
      await bq.upsertJobScheduler('ev', every, template),
      await bq.upsertJobScheduler('cr', cron, template),
      await bq.upsertJobScheduler('plain', { every: 60_000 }),
    ];
    const nJobs = [
      await q.upsertJobScheduler('ev', every, template),
      await q.upsertJobScheduler('cr', cron, template),
      await q.upsertJobScheduler('plain', { every: 60_000 }),
    ];
    return { bName, nName, bq, q, bJobs, nJobs };
  }

  it('upsert writes the same scheduler hashes and first iterations', async () => {
    const redis = track(rawClient());
    const startDate = Math.ceil(Date.now() / 1000) * 1000 + 60_000 + 123;
    const endDate = startDate + 3_600_000;
    const { bName, nName, bJobs, nJobs } = await upsertBoth(startDate, endDate);
    expect(nJobs.map((j) => j.id)).toEqual(
      bJobs.map((j) => (j!.id!.startsWith('repeat:plain:') ? expect.any(String) : j!.id)),
    );
    for (const sid of ['ev', 'cr']) {
      expect(await schedulerHash(redis, nName, sid)).toEqual(
        await schedulerHash(redis, bName, sid),
      );
      expect(await schedulerScore(redis, nName, sid)).toBe(await schedulerScore(redis, bName, sid));
    }
    // 'plain' runs now: its offset depends on the instant, the fields do not.
    const bPlain = await schedulerHash(redis, bName, 'plain');
    const nPlain = await schedulerHash(redis, nName, 'plain');
    expect(Object.keys(nPlain).sort()).toEqual(Object.keys(bPlain).sort());
    expect({ ...nPlain, offset: '' }).toEqual({ ...bPlain, offset: '' });
    for (let i = 0; i < 3; i++) {
      const b = await jobHashWithOpts(redis, bName, bJobs[i]!.id!);
      const n = await jobHashWithOpts(redis, nName, nJobs[i]!.id);
      const sb = stable(b.hash, b.opts);
      const sn = stable(n.hash, n.opts);
      if (i === 2) {
        expect(sn.fields).toEqual(sb.fields);
        expect({ ...sn.opts, jobId: '' }).toEqual({ ...sb.opts, jobId: '' });
      } else {
        expect(sn).toEqual(sb);
        expect(Number(n.hash.timestamp) + Number(n.hash.delay)).toBe(iterationMillis(nJobs[i]!.id));
        expect(await placeOf(redis, nName, nJobs[i]!.id)).toBe(
          await placeOf(redis, bName, bJobs[i]!.id!),
        );
      }
    }
    expect(await redis.get(queueKey(nName, 'id'))).toBe(await redis.get(queueKey(bName, 'id')));
  });

  it('workers of each side write the same next iterations', async () => {
    const redis = track(rawClient());
    const bName = uniqueQueueName('schw-b');
    const nName = uniqueQueueName('schw-n');
    const bq = track(new BullQueue(bName, { connection: redisOptions() }));
    const nq = track(new BullQueue(nName, { connection: redisOptions() }));
    const startDate = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const template = { name: 'w', data: { w: 1 }, opts: { attempts: 2, removeOnFail: true } };
    for (const queue of [bq, nq]) {
      await queue.upsertJobScheduler('ev', { every: 1000, startDate }, template);
      await queue.upsertJobScheduler('cr', { pattern: '* * * * * *', tz: 'Asia/Tokyo' }, template);
    }
    const bRuns: SeenRun[] = [];
    const nRuns: SeenRun[] = [];
    startWorkers('bullmq', bName, bRuns, 1);
    startWorkers('oxmq', nName, nRuns, 1);
    await waitFor(
      () =>
        [bRuns, nRuns].every(
          (runs) => runMillis(runs, 'ev').length >= 2 && runMillis(runs, 'cr').length >= 2,
        ),
      15_000,
    );
    for (const sid of ['ev', 'cr']) {
      const [bIds, nIds] = [
        await iterationIds(redis, bName, sid),
        await iterationIds(redis, nName, sid),
      ];
      // Iterations 2 and 3 were created by the workers (2 started, 3 pending or started).
      for (const index of [1, 2]) {
        const b = await jobHashWithOpts(redis, bName, bIds[index]!);
        const n = await jobHashWithOpts(redis, nName, nIds[index]!);
        const sb = stable(b.hash, b.opts);
        const sn = stable(n.hash, n.opts);
        if (sid === 'cr') {
          // Cron runs sit on different seconds per queue; compare the shape.
          expect(sn.fields).toEqual(sb.fields);
          expect(sn.rest).toEqual(sb.rest);
          expect(Object.keys(sn.opts).sort()).toEqual(Object.keys(sb.opts).sort());
          expect({ ...sn.opts, jobId: '', prevMillis: 0 }).toEqual({
            ...sb.opts,
            jobId: '',
            prevMillis: 0,
          });
          expect(sn.opts.prevMillis).toBe(iterationMillis(nIds[index]!));
        } else {
          expect(nIds[index]).toBe(bIds[index]);
          expect(sn).toEqual(sb);
        }
      }
      const bHash = await schedulerHash(redis, bName, sid);
      const nHash = await schedulerHash(redis, nName, sid);
      expect(Object.keys(nHash).sort()).toEqual(Object.keys(bHash).sort());
      expect(Number(nHash.ic)).toBe(nIds.length);
      expect(Number(bHash.ic)).toBe(bIds.length);
    }
  });

  it('both libraries read the same scheduler the same way', async () => {
    const name = uniqueQueueName('sch-read');
    const { bq, q } = queues(name);
    const endDate = Date.now() + 86_400_000;
    await bq.upsertJobScheduler(
      'b',
      { pattern: '0 */5 * * * *', tz: 'Asia/Kolkata', endDate, limit: 7 },
      { name: 'bj', data: { d: [1, 2] }, opts: { attempts: 4, removeOnComplete: true } },
    );
    await q.upsertJobScheduler(
      'n',
      { every: 45_000, startDate: Date.now() + 10_000 },
      { name: 'nj', data: { e: 'f' }, opts: { keepLogs: 3, priority: 1 } },
    );
    for (const sid of ['b', 'n']) {
      expect(await q.getJobScheduler(sid)).toEqual(await bq.getJobScheduler(sid));
    }
    expect(await q.getJobSchedulers(0, -1, true)).toEqual(await bq.getJobSchedulers(0, -1, true));
    expect(await q.getJobSchedulersCount()).toBe(await bq.getJobSchedulersCount());
  });
});

describe('mixed', () => {
  it('bullmq and OxMQ workers on one queue keep a single chain', async () => {
    const name = uniqueQueueName('sch-mixed');
    const { q } = queues(name);
    const redis = track(rawClient());
    const runs: SeenRun[] = [];
    const errors = [
      ...startWorkers('bullmq', name, runs, 2),
      ...startWorkers('oxmq', name, runs, 2),
    ];
    await q.upsertJobScheduler('m', { every: 300 }, { name: 'm' });
    await waitFor(() => runs.length >= 8, 15_000);
    const ids = runs.map((run) => run.id);
    expect(new Set(ids).size).toBe(ids.length);
    const millis = [...runMillis(runs, 'm')].sort((a, b) => a - b);
    expect(gaps(millis).every((gap) => gap === 300)).toBe(true);
    const existing = await iterationIds(redis, name, 'm');
    expect(existing.slice(0, millis.length).map(iterationMillis)).toEqual(millis);
    expect(existing.length - millis.length).toBeLessThanOrEqual(1);
    expect(errors).toEqual([]);
  });

  it("an upsert from one side replaces the other side's pending iteration", async () => {
    const name = uniqueQueueName('sch-replace');
    const { bq, q } = queues(name);
    const redis = track(rawClient());
    const first = await bq.upsertJobScheduler('x', { every: 60_000 }, { data: { v: 1 } });
    const mine = await q.upsertJobScheduler('x', { every: 60_000 }, { data: { v: 2 } });
    expect(mine.id).toBe(first!.id);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([mine.id]);
    expect(await redis.hget(queueKey(name, mine.id), 'data')).toBe('{"v":2}');
    const again = await bq.upsertJobScheduler('x', { every: 60_000 }, { data: { v: 3 } });
    expect(again!.id).toBe(mine.id);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([mine.id]);
    expect(await redis.hget(queueKey(name, mine.id), 'data')).toBe('{"v":3}');
    expect((await schedulerHash(redis, name, 'x')).ic).toBe('1');
    // Delayed (cron) iterations too, in both directions.
    const cronB = await bq.upsertJobScheduler('y', { pattern: '0 0 1 1 *' });
    const cronN = await q.upsertJobScheduler('y', { pattern: '0 0 2 1 *' });
    expect(await redis.exists(queueKey(name, cronB!.id!))).toBe(0);
    const cronB2 = await bq.upsertJobScheduler('y', { pattern: '0 0 3 1 *' });
    expect(await redis.exists(queueKey(name, cronN.id))).toBe(0);
    expect(await redis.zrange(queueKey(name, 'delayed'), 0, -1)).toEqual([cronB2!.id]);
  });
});
