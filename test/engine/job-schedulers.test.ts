/**
 * Job schedulers on OxMQ alone (docs/redis-keys.md): timing of every and cron schedules (time zones
 * included), limit / endDate / startDate, upsert replacing the pending iteration, removal, the
 * downtime rule (at most one missed run made up), no double fire with several workers, and bad
 * input refused with nothing written.
 */
import { describe, expect, inject, it } from 'vitest';
import { Queue, redisStorage, ValidationError, Worker, type Job } from 'oxmq';
import { JobScheduler, type RepeatOptions } from 'oxmq/internals';
import { startChildWorker, type ChildWorker } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { queueKey, queueKeys } from '../helpers/redis-state';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import {
  gaps,
  iterationIds,
  iterationMillis,
  placeOf,
  runMillis,
  schedulerHash,
  schedulerScore,
  type SeenRun,
} from '../helpers/scheduler-state';

const track = useCleanup();

function setup(label = 'sched') {
  const name = uniqueQueueName(label);
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const redis = track(rawClient());
  return { name, queue, redis };
}

/** An OxMQ worker that records every run it starts. */
function recordingWorker(
  name: string,
  runs: SeenRun[],
  opts: { concurrency?: number; stalledInterval?: number } = {},
) {
  const worker = track(
    new Worker(
      name,
      async (job: Job) => {
        runs.push({ id: job.id, rjk: job.repeatJobKey, startedAt: Date.now() });
      },
      { connection: redisOptions(), ...opts },
    ),
  );
  const errors: Error[] = [];
  worker.on('error', (error: Error) => errors.push(error));
  return { worker, errors };
}

/** The UTC instant's wall-clock time in `timeZone`, as "HH:MM:SS". */
function wallClock(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(ms));
}

describe('every schedules', () => {
  it('upsert stores the scheduler and a first iteration due now', async () => {
    const { name, queue, redis } = setup();
    const before = Date.now();
    const job = await queue.upsertJobScheduler(
      'tick',
      { every: 60_000 },
      { name: 'tick-job', data: { x: 1 }, opts: { attempts: 2, removeOnComplete: true } },
    );
    const after = Date.now();
    const millis = iterationMillis(job.id);
    expect(job.id).toBe(`repeat:tick:${millis}`);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(after);
    expect(job.repeatJobKey).toBe('tick');
    expect(job.name).toBe('tick-job');
    expect(await schedulerScore(redis, name, 'tick')).toBe(millis);
    expect(await schedulerHash(redis, name, 'tick')).toEqual({
      name: 'tick-job',
      every: '60000',
      offset: String(millis % 60_000),
      opts: expect.any(String),
      data: '{"x":1}',
      ic: '1',
    });
    const hash = await redis.hgetall(queueKey(name, job.id));
    expect(hash).toMatchObject({ name: 'tick-job', data: '{"x":1}', rjk: 'tick', delay: '0' });
    expect(JSON.parse(hash.opts!)).toMatchObject({
      attempts: 2,
      removeOnComplete: true,
      jobId: job.id,
      repeatJobKey: 'tick',
      delay: 0,
      repeat: { every: 60_000, count: 1 },
    });
    expect(await placeOf(redis, name, job.id)).toBe('wait');
    expect(await queue.getJobSchedulersCount()).toBe(1);
    expect(await queue.getJobScheduler('tick')).toEqual({
      key: 'tick',
      name: 'tick-job',
      next: millis,
      iterationCount: 1,
      every: 60_000,
      offset: millis % 60_000,
      template: { data: { x: 1 }, opts: { attempts: 2, removeOnComplete: true } },
    });
  });

  it('every 1000: iterations 1 s apart with the right ids, ic and score advancing', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    const { errors } = recordingWorker(name, runs);
    const first = await queue.upsertJobScheduler('s', { every: 1000 }, { name: 't' });
    const firstMillis = iterationMillis(first.id);
    const scores: number[] = [];
    await waitFor(async () => {
      const score = await schedulerScore(redis, name, 's');
      if (score !== null && scores.at(-1) !== score) scores.push(score);
      return runMillis(runs, 's').length >= 4;
    }, 15_000);
    const millis = runMillis(runs, 's');
    expect(millis[0]).toBe(firstMillis);
    expect(gaps(millis.slice(0, 4))).toEqual([1000, 1000, 1000]);
    for (const run of runs) {
      expect(run.id).toMatch(/^repeat:s:\d+$/);
      // Never early: a run starts at or after its slot.
      expect(run.startedAt).toBeGreaterThanOrEqual(iterationMillis(run.id));
    }
    // Scores seen only ever move forward, one interval at a time.
    expect(gaps(scores).every((gap) => gap === 1000)).toBe(true);
    const hash = await schedulerHash(redis, name, 's');
    const score = (await schedulerScore(redis, name, 's'))!;
    expect(Number(hash.ic)).toBe((score - firstMillis) / 1000 + 1);
    expect(errors).toEqual([]);
  });

  it('an offset puts the runs on k * every + offset', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    recordingWorker(name, runs);
    const job = await queue.upsertJobScheduler('o', { every: 1000, offset: 250 }, { name: 'o' });
    expect(iterationMillis(job.id) % 1000).toBe(250);
    expect(job.delay).toBeGreaterThan(0);
    await waitFor(() => runMillis(runs, 'o').length >= 2, 10_000);
    expect(runMillis(runs, 'o').map((m) => m % 1000)).toEqual([250, 250]);
    expect((await schedulerHash(redis, name, 'o')).offset).toBe('250');
  });
});

describe('cron schedules', () => {
  it('a six-field pattern fires every second on the second, in a time zone', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    const { errors } = recordingWorker(name, runs);
    const before = Date.now();
    const first = await queue.upsertJobScheduler(
      'c',
      { pattern: '* * * * * *', tz: 'America/New_York' },
      { name: 'ct', data: { c: 1 } },
    );
    const firstMillis = iterationMillis(first.id);
    expect(firstMillis % 1000).toBe(0);
    expect(firstMillis).toBeGreaterThan(before);
    expect(firstMillis - before).toBeLessThanOrEqual(1000);
    await waitFor(() => runMillis(runs, 'c').length >= 3, 15_000);
    const millis = runMillis(runs, 'c');
    expect(millis[0]).toBe(firstMillis);
    expect(gaps(millis.slice(0, 3))).toEqual([1000, 1000]);
    for (const run of runs) expect(run.startedAt).toBeGreaterThanOrEqual(iterationMillis(run.id));
    const hash = await schedulerHash(redis, name, 'c');
    expect(hash).toMatchObject({ name: 'ct', pattern: '* * * * * *', tz: 'America/New_York' });
    expect(Number(hash.ic)).toBeGreaterThanOrEqual(3);
    // The cron iteration records the instant it was computed for.
    const second = await redis.hget(queueKey(name, `repeat:c:${millis[1]}`), 'opts');
    expect(JSON.parse(second!)).toMatchObject({
      prevMillis: millis[1],
      repeat: { pattern: '* * * * * *', tz: 'America/New_York', count: 2 },
    });
    expect(errors).toEqual([]);
  });

  it('a daily pattern in a non-UTC zone is due at that wall-clock time there', async () => {
    const { name, queue, redis } = setup();
    const now = Date.now();
    // Asia/Kathmandu is UTC+05:45 all year: 09:00 there is 03:15 UTC.
    const kathmandu = await queue.upsertJobScheduler('ktm', {
      pattern: '0 9 * * *',
      tz: 'Asia/Kathmandu',
    });
    const day = 86_400_000;
    let expected = Math.floor(now / day) * day + (3 * 60 + 15) * 60_000;
    if (expected <= now) expected += day;
    expect(iterationMillis(kathmandu.id)).toBe(expected);
    expect(await schedulerScore(redis, name, 'ktm')).toBe(expected);
    // A zone with daylight saving: whatever the date, the run is at 09:00:00 New York time.
    const ny = await queue.upsertJobScheduler('ny', {
      pattern: '0 9 * * *',
      tz: 'America/New_York',
    });
    const nyMillis = iterationMillis(ny.id);
    expect(wallClock(nyMillis, 'America/New_York')).toBe('09:00:00');
    expect(nyMillis).toBeGreaterThan(now);
    expect(nyMillis - now).toBeLessThanOrEqual(day + 3_600_000);
    expect(ny.delay).toBeGreaterThan(0);
  });

  it('an iteration started early computes the next run from its own instant (prevMillis)', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler('k', {
      pattern: '0 9 * * *',
      tz: 'Asia/Kathmandu',
    });
    const firstMillis = iterationMillis(first.id);
    // Promote the delayed iteration so a worker starts it hours before its instant.
    await (await queue.getJob(first.id))!.promote();
    const runs: SeenRun[] = [];
    recordingWorker(name, runs);
    await waitFor(() => runs.length === 1, 10_000);
    await waitFor(async () => (await schedulerScore(redis, name, 'k')) !== firstMillis, 5_000);
    // From max(now, prevMillis) = prevMillis: the next day's 09:00, not today's again.
    expect(await schedulerScore(redis, name, 'k')).toBe(firstMillis + 86_400_000);
    const next = `repeat:k:${firstMillis + 86_400_000}`;
    expect(await placeOf(redis, name, next)).toBe('delayed');
    expect((await schedulerHash(redis, name, 'k')).ic).toBe('2');
  });

  it('immediately runs the first iteration now', async () => {
    const { queue } = setup();
    const before = Date.now();
    const job = await queue.upsertJobScheduler('i', { pattern: '0 0 1 1 *', immediately: true });
    expect(iterationMillis(job.id)).toBeGreaterThanOrEqual(before);
    expect(iterationMillis(job.id)).toBeLessThanOrEqual(Date.now());
    expect(job.delay).toBe(0);
  });
});

describe('limit, endDate and startDate', () => {
  it('limit stops the scheduler after that many iterations', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    recordingWorker(name, runs);
    await queue.upsertJobScheduler('lim', { every: 300, limit: 3 }, { name: 'l' });
    await waitFor(() => runs.length >= 3, 10_000);
    await sleep(1200);
    const millis = runMillis(runs, 'lim');
    expect(millis).toHaveLength(3);
    expect(gaps(millis)).toEqual([300, 300]);
    expect(await iterationIds(redis, name, 'lim')).toHaveLength(3);
    expect(await queue.getJobScheduler('lim')).toMatchObject({ iterationCount: 3, limit: 3 });
    expect(await redis.zcard(queueKey(name, 'delayed'))).toBe(0);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
  });

  it('no iteration is created for a run after endDate (every and cron)', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    recordingWorker(name, runs);
    const endDate = Date.now() + 1500;
    await queue.upsertJobScheduler('e', { every: 400, endDate }, { name: 'e' });
    await queue.upsertJobScheduler('ce', { pattern: '* * * * * *', endDate: new Date(endDate) });
    await sleep(endDate - Date.now() + 1500);
    const every = runMillis(runs, 'e');
    const cron = runMillis(runs, 'ce');
    expect(every.length).toBeGreaterThanOrEqual(3);
    expect(cron.length).toBeGreaterThanOrEqual(1);
    for (const id of [
      ...(await iterationIds(redis, name, 'e')),
      ...(await iterationIds(redis, name, 'ce')),
    ]) {
      expect(iterationMillis(id)).toBeLessThanOrEqual(endDate);
    }
    expect(runs.every((run) => iterationMillis(run.id) <= endDate)).toBe(true);
    expect(await redis.zcard(queueKey(name, 'delayed'))).toBe(0);
  });

  it('a future startDate delays the first run to it (every) or after it (cron)', async () => {
    const { name, queue } = setup();
    const runs: SeenRun[] = [];
    recordingWorker(name, runs);
    const startDate = Date.now() + 1500;
    const every = await queue.upsertJobScheduler('se', { every: 5000, startDate }, { name: 'a' });
    const cron = await queue.upsertJobScheduler('sc', {
      pattern: '* * * * * *',
      startDate: new Date(startDate).toISOString(),
    });
    expect(iterationMillis(every.id)).toBe(startDate);
    expect(every.delay).toBeGreaterThan(1000);
    const cronMillis = iterationMillis(cron.id);
    expect(cronMillis).toBeGreaterThan(startDate);
    expect(cronMillis - startDate).toBeLessThanOrEqual(1000);
    expect((await queue.getJobScheduler('se'))?.startDate).toBe(startDate);
    await waitFor(() => runMillis(runs, 'se').length >= 1 && runMillis(runs, 'sc').length >= 1);
    const firstEvery = runs.find((run) => run.rjk === 'se')!;
    const firstCron = runs.find((run) => run.rjk === 'sc')!;
    expect(firstEvery.startedAt).toBeGreaterThanOrEqual(startDate);
    expect(firstCron.startedAt).toBeGreaterThanOrEqual(cronMillis);
  });
});

describe('upsert of an existing scheduler', () => {
  it('replaces a pending every iteration in its slot, with the new template', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler('u', { every: 60_000 }, { data: { v: 1 } });
    const second = await queue.upsertJobScheduler('u', { every: 60_000 }, { data: { v: 2 } });
    expect(second.id).toBe(first.id);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([first.id]);
    expect(await redis.hget(queueKey(name, first.id), 'data')).toBe('{"v":2}');
    expect(await schedulerHash(redis, name, 'u')).toMatchObject({ data: '{"v":2}', ic: '1' });
    expect(await redis.get(queueKey(name, 'id'))).toBe('2');
    // A new interval re-times the schedule: the old iteration goes.
    const third = await queue.upsertJobScheduler('u', { every: 30_000 }, { data: { v: 3 } });
    expect(third.id).not.toBe(first.id);
    expect(await redis.exists(queueKey(name, first.id))).toBe(0);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([third.id]);
    expect(await iterationIds(redis, name, 'u')).toEqual([third.id]);
    expect((await schedulerHash(redis, name, 'u')).every).toBe('30000');
  });

  it('replaces a pending cron iteration with the new pattern', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler('cu', { pattern: '0 0 1 1 *' });
    expect(await placeOf(redis, name, first.id)).toBe('delayed');
    const second = await queue.upsertJobScheduler('cu', { pattern: '0 0 2 1 *', tz: 'UTC' });
    expect(iterationMillis(second.id) - iterationMillis(first.id)).toBe(86_400_000);
    expect(await redis.exists(queueKey(name, first.id))).toBe(0);
    expect(await redis.zrange(queueKey(name, 'delayed'), 0, -1)).toEqual([second.id]);
    expect(await schedulerScore(redis, name, 'cu')).toBe(iterationMillis(second.id));
    expect(await schedulerHash(redis, name, 'cu')).toMatchObject({
      pattern: '0 0 2 1 *',
      tz: 'UTC',
      ic: '1',
    });
  });

  it('leaves an iteration that already started alone and schedules the next slot', async () => {
    const { name, queue, redis } = setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    track(
      new Worker(
        name,
        async (job: Job) => {
          started.push(job.id);
          await held;
        },
        { connection: redisOptions() },
      ),
    );
    const first = await queue.upsertJobScheduler('a', { every: 60_000 }, { data: { v: 1 } });
    await waitFor(() => started.length === 1);
    const next = `repeat:a:${iterationMillis(first.id) + 60_000}`;
    await waitFor(async () => (await placeOf(redis, name, next)) === 'delayed');
    // The worker's successor is pending: upsert replaces that one, not the running job.
    const replaced = await queue.upsertJobScheduler('a', { every: 60_000 }, { data: { v: 2 } });
    expect(replaced.id).toBe(next);
    expect(await placeOf(redis, name, first.id)).toBe('active');
    expect(await redis.hget(queueKey(name, next), 'data')).toBe('{"v":2}');
    release();
    await waitFor(async () => (await placeOf(redis, name, first.id)) === 'completed');
    expect(await iterationIds(redis, name, 'a')).toEqual([first.id, next]);
  });
});

describe('removeJobScheduler', () => {
  it('removes the scheduler and its pending iteration; workers stop', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    recordingWorker(name, runs);
    await queue.upsertJobScheduler('r', { every: 500 }, { name: 'r' });
    await waitFor(() => runs.length >= 2, 10_000);
    expect(await queue.removeJobScheduler('r')).toBe(true);
    const count = runs.length;
    expect(await redis.exists(queueKey(name, 'repeat:r'))).toBe(0);
    expect(await schedulerScore(redis, name, 'r')).toBeNull();
    await sleep(1500);
    // One run may have been starting at that very moment; nothing after it.
    expect(runs.length).toBeLessThanOrEqual(count + 1);
    expect(await redis.zcard(queueKey(name, 'delayed'))).toBe(0);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(0);
    expect(await queue.removeJobScheduler('r')).toBe(false);
    expect(await queue.getJobScheduler('r')).toBeUndefined();
  });

  it('announces the removed pending iteration with its previous state', async () => {
    const { name, queue, redis } = setup();
    const job = await queue.upsertJobScheduler('rd', { pattern: '0 0 1 1 *' });
    expect(await queue.removeJobScheduler('rd')).toBe(true);
    expect(await redis.exists(queueKey(name, job.id))).toBe(0);
    const last = (await redis.xrevrange(queueKey(name, 'events'), '+', '-', 'COUNT', 1))[0]![1];
    expect(last).toEqual(['event', 'removed', 'jobId', job.id, 'prev', 'delayed']);
  });
});

describe('getJobSchedulers', () => {
  it('lists schedulers by next run, both orders, and pages', async () => {
    const { queue } = setup();
    await queue.upsertJobScheduler('late', { pattern: '0 0 1 1 *' });
    await queue.upsertJobScheduler('soon', { every: 60_000 });
    await queue.upsertJobScheduler('mid', { every: 60_000, startDate: Date.now() + 3_600_000 });
    expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual(['late', 'mid', 'soon']);
    expect((await queue.getJobSchedulers(0, -1, true)).map((s) => s.key)).toEqual([
      'soon',
      'mid',
      'late',
    ]);
    expect((await queue.getJobSchedulers(0, 0, true)).map((s) => s.key)).toEqual(['soon']);
    expect(await queue.getJobSchedulersCount()).toBe(3);
  });
});

describe('downtime', () => {
  it('every: the pending run is made up once, then the grid continues after now', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler('d', { every: 1000 }, { name: 'd' });
    const m0 = iterationMillis(first.id);
    await sleep(3300); // no worker: three slots pass
    const runs: SeenRun[] = [];
    const workerStart = Date.now();
    recordingWorker(name, runs);
    await waitFor(() => runs.length >= 3, 10_000);
    const millis = runMillis(runs, 'd');
    // Exactly one run from before the worker came back: the one that was pending.
    expect(millis.filter((m) => m < workerStart)).toEqual([m0]);
    const lateStart = runs[0]!.startedAt;
    expect(millis[1]).toBeGreaterThan(lateStart - 500);
    expect(millis[1]! - lateStart).toBeLessThanOrEqual(1000);
    expect((millis[1]! - m0) % 1000).toBe(0);
    expect(gaps(millis.slice(1, 3))).toEqual([1000]);
    // No job was ever created for the skipped slots.
    const ids = await iterationIds(redis, name, 'd');
    expect(ids.map(iterationMillis).filter((m) => m > m0 && m < millis[1]!)).toEqual([]);
  });

  it('cron: the pending run is made up once, then the next instant after now', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler('dc', { pattern: '* * * * * *' });
    const s0 = iterationMillis(first.id);
    await sleep(s0 - Date.now() + 3300);
    const runs: SeenRun[] = [];
    const workerStart = Date.now();
    recordingWorker(name, runs);
    await waitFor(() => runs.length >= 2, 10_000);
    const millis = runMillis(runs, 'dc');
    expect(millis.filter((m) => m < workerStart)).toEqual([s0]);
    const lateStart = runs[0]!.startedAt;
    expect(millis[1]! % 1000).toBe(0);
    expect(millis[1]).toBeGreaterThan(lateStart - 500);
    expect(millis[1]! - lateStart).toBeLessThanOrEqual(1000);
    const ids = await iterationIds(redis, name, 'dc');
    expect(ids.map(iterationMillis).filter((m) => m > s0 && m < millis[1]!)).toEqual([]);
  });
});

describe('no double fire', () => {
  it('three workers keep one chain: every iteration runs once, slots consecutive', async () => {
    const { name, queue, redis } = setup();
    const runs: SeenRun[] = [];
    const workers = [1, 2, 3].map(() => recordingWorker(name, runs, { concurrency: 2 }));
    await Promise.all(workers.map(({ worker }) => worker.waitUntilReady()));
    await queue.upsertJobScheduler('dbl', { every: 300 }, { name: 'dbl' });
    await waitFor(() => runs.length >= 8, 15_000);
    await Promise.all(workers.map(({ worker }) => worker.close()));
    const ids = runs.map((run) => run.id);
    expect(new Set(ids).size).toBe(ids.length);
    const millis = [...runMillis(runs, 'dbl')].sort((a, b) => a - b);
    expect(gaps(millis).every((gap) => gap === 300)).toBe(true);
    // Every iteration job that exists is either one that ran or the single pending one.
    const existing = await iterationIds(redis, name, 'dbl');
    expect(existing).toHaveLength(ids.length + 1);
    expect(Number((await schedulerHash(redis, name, 'dbl')).ic)).toBe(existing.length);
    expect(workers.flatMap(({ errors }) => errors)).toEqual([]);
  });

  it('only the current iteration creates a successor, however many callers (Lua guard)', async () => {
    const { name, queue, redis } = setup();
    const first = await queue.upsertJobScheduler('g', { every: 60_000 }, { name: 'g' });
    const cron = await queue.upsertJobScheduler('gc', { pattern: '0 0 1 1 *' });
    const fetched = (await queue.getJob(first.id))!;
    const fetchedCron = (await queue.getJob(cron.id))!;
    const clients = [1, 2, 3].map(() => track(rawClient()));
    const ref = { prefix: queue.prefix, name: queue.name };
    const schedulers = clients.map((client) => {
      const connection = redisStorage.connect({ role: 'queue', connection: client, queue: ref });
      return new JobScheduler(redisStorage.queue({ connection, queue: ref }).schedulers, queue);
    });
    const outcomes = await Promise.all(schedulers.map((s) => s.nextIteration(fetched)));
    const cronOutcomes = await Promise.all(schedulers.map((s) => s.nextIteration(fetchedCron)));
    for (const results of [outcomes, cronOutcomes]) {
      expect(results.filter((o) => o?.created)).toHaveLength(1);
      expect(results.filter((o) => o && !o.created && o.reason === 'not-current')).toHaveLength(2);
    }
    const next = iterationMillis(first.id) + 60_000;
    expect(await iterationIds(redis, name, 'g')).toEqual([first.id, `repeat:g:${next}`]);
    expect(await schedulerScore(redis, name, 'g')).toBe(next);
    expect((await schedulerHash(redis, name, 'g')).ic).toBe('2');
    expect(await iterationIds(redis, name, 'gc')).toHaveLength(2);
    // A later re-fetch of the same iteration (as after a stall) changes nothing either.
    expect(await schedulers[0]!.nextIteration(fetched)).toEqual({
      created: false,
      reason: 'not-current',
    });
    expect(await iterationIds(redis, name, 'g')).toHaveLength(2);
  });

  it('an iteration re-run after a stall does not fork the schedule', async () => {
    const { name, queue, redis } = setup();
    const started: string[] = [];
    const dying = track(
      new Worker(
        name,
        async (job: Job) => {
          started.push(job.id);
          await new Promise(() => undefined);
        },
        { connection: redisOptions(), lockDuration: 1000, skipStalledCheck: true },
      ),
    );
    const first = await queue.upsertJobScheduler('st', { every: 60_000 }, { name: 'st' });
    const m0 = iterationMillis(first.id);
    await waitFor(() => started.length === 1);
    await waitFor(async () => (await schedulerScore(redis, name, 'st')) === m0 + 60_000);
    await dying.close(true); // its lock now expires without a last renewal
    const rerun: SeenRun[] = [];
    const { errors } = recordingWorker(name, rerun, { stalledInterval: 300 });
    await waitFor(() => rerun.length === 1, 15_000);
    expect(rerun[0]!.id).toBe(first.id);
    expect(await redis.hget(queueKey(name, first.id), 'stc')).toBe('1');
    await sleep(300);
    expect(await iterationIds(redis, name, 'st')).toEqual([first.id, `repeat:st:${m0 + 60_000}`]);
    expect(await schedulerScore(redis, name, 'st')).toBe(m0 + 60_000);
    expect((await schedulerHash(redis, name, 'st')).ic).toBe('2');
    expect(errors).toEqual([]);
  });

  it('three worker processes (two OxMQ, one bullmq) start each iteration once', async () => {
    const { name, queue, redis } = setup();
    const children: ChildWorker[] = [];
    try {
      for (const side of ['oxmq', 'bullmq', 'oxmq'] as const) {
        children.push(await startChildWorker({ side, queueName: name, port: inject('redisPort') }));
      }
      await Promise.all(children.map((child) => child.waitForMessage((m) => m.event === 'ready')));
      // Each child hangs in its first job (concurrency 1), so three iterations occupy all three.
      const first = await queue.upsertJobScheduler('p', { every: 700 }, { name: 'p' });
      const m0 = iterationMillis(first.id);
      const started = await Promise.all(
        children.map((child) => child.waitForMessage((m) => m.event === 'active', 15_000)),
      );
      const ids = started.map((m) => String(m.jobId)).sort();
      expect(new Set(ids).size).toBe(3);
      expect(ids.map(iterationMillis).sort((a, b) => a - b)).toEqual([m0, m0 + 700, m0 + 1400]);
      await waitFor(async () => (await schedulerScore(redis, name, 'p')) === m0 + 2100);
      await sleep(300);
      expect(await iterationIds(redis, name, 'p')).toEqual(
        [0, 700, 1400, 2100].map((d) => `repeat:p:${m0 + d}`),
      );
      expect((await schedulerHash(redis, name, 'p')).ic).toBe('4');
      expect(await placeOf(redis, name, `repeat:p:${m0 + 2100}`)).toBe('delayed');
    } finally {
      await Promise.all(children.map((child) => child.kill()));
    }
  });
});

describe('legacy repeatables', () => {
  it('a v5 repeatable iteration runs once and is reported, never rescheduled', async () => {
    const { name, redis } = setup();
    // What bullmq 5 left behind: zset member `name::::every`, no `ic` in a scheduler hash.
    const legacyKey = 'tick::::60000';
    const jobId = 'repeat:3f2a9c:1796208911992';
    await redis.zadd(queueKey(name, 'repeat'), 1796208911992, legacyKey);
    await redis.hset(queueKey(name, jobId), {
      name: 'tick',
      data: '{}',
      opts: JSON.stringify({ repeat: { every: 60_000, count: 1 }, jobId }),
      timestamp: Date.now(),
      delay: 0,
      priority: 0,
      rjk: legacyKey,
    });
    await redis.lpush(queueKey(name, 'wait'), jobId);
    await redis.zadd(queueKey(name, 'marker'), 0, '0');
    const runs: SeenRun[] = [];
    const { errors } = recordingWorker(name, runs);
    await waitFor(() => runs.length === 1 && errors.length === 1);
    expect(errors[0]!.message).toMatch(/Legacy repeatable job "tick::::60000"/);
    expect(await redis.zscore(queueKey(name, 'repeat'), legacyKey)).toBe('1796208911992');
    expect((await queueKeys(redis, name)).filter((k) => k.includes(':repeat:'))).toEqual([
      queueKey(name, jobId),
    ]);
  });
});

describe('bad input', () => {
  const bad: [string, RepeatOptions, { name?: string; data?: unknown; opts?: object }?][] = [
    ['both every and pattern', { every: 1000, pattern: '* * * * *' }],
    ['neither every nor pattern', {}],
    ['every 0', { every: 0 }],
    ['negative every', { every: -5 }],
    ['fractional every', { every: 1.5 }],
    ['pattern that does not parse', { pattern: 'not a cron' }],
    ['pattern out of range', { pattern: '61 * * * *' }],
    ['too many fields', { pattern: '* * * * * * *' }],
    ['empty pattern', { pattern: '' }],
    ['unknown timezone', { pattern: '* * * * *', tz: 'Mars/Olympus_Mons' }],
    ['unknown timezone with every', { every: 1000, tz: 'Mars/Olympus_Mons' }],
    ['endDate in the past', { every: 1000, endDate: Date.now() - 1000 }],
    [
      'endDate before startDate',
      { every: 1000, startDate: Date.now() + 9e6, endDate: Date.now() + 1e6 },
    ],
    ['invalid startDate', { every: 1000, startDate: 'not a date' }],
    ['limit 0', { every: 1000, limit: 0 }],
    ['offset not below every', { every: 1000, offset: 1000 }],
    ['offset with a pattern', { pattern: '* * * * *', offset: 5 }],
    [
      'immediately with startDate',
      { pattern: '* * * * *', immediately: true, startDate: Date.now() + 1e4 },
    ],
    ['unknown repeat option', { every: 1000, utc: true } as RepeatOptions],
    ['template jobId', { every: 1000 }, { opts: { jobId: 'mine' } }],
    ['template delay', { every: 1000 }, { opts: { delay: 5 } }],
    ['template bad attempts', { every: 1000 }, { opts: { attempts: -1 } }],
    ['template name not a string', { every: 1000 }, { name: 5 as unknown as string }],
  ];

  it.each(bad)('%s → ValidationError, nothing written', async (_label, repeat, template) => {
    const { name, queue, redis } = setup();
    await queue.waitUntilReady();
    const before = await queueKeys(redis, name);
    await expect(queue.upsertJobScheduler('bad', repeat, template)).rejects.toThrow(
      ValidationError,
    );
    expect(await queueKeys(redis, name)).toEqual(before);
    expect(await redis.exists(queueKey(name, 'id'))).toBe(0);
  });

  it('an empty scheduler id is refused', async () => {
    const { queue } = setup();
    await expect(queue.upsertJobScheduler('', { every: 1000 })).rejects.toThrow(ValidationError);
  });
});
