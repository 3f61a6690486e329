/**
 * RedisQueueOperations against a real Redis: exact state after each operation (docs/redis-keys.md),
 * and the same data read by the real bullmq 6.7.0 Queue.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisChores, RedisQueueOperations } from 'oxmq/internals';
import { DEFAULTS } from 'oxmq/internals';
import {
  JobBelongsToSchedulerError,
  JobNotFoundError,
  JobNotInStateError,
  QueueStateError,
  ValidationError,
} from 'oxmq/internals';
import { QueueKeys } from 'oxmq/internals';
import {
  activate,
  addJobs,
  bullQueue,
  events,
  eventsSince,
  finishNext,
  jobKeys,
  makeQueue,
  queueKeys,
  useClosables,
  zmembers,
  zscores,
} from './queue-operations.fixtures';

const track = useClosables();

describe('reads', () => {
  it('getCounts counts every structure in one round trip, skipping a legacy tail marker', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}, {}, { priority: 3 }, { delay: 60_000 }]);
    await activate(q);
    await q.client.rpush(q.keys.paused, 'x1', 'x2');
    await q.client.rpush(q.keys.wait, '0:1000');
    await q.client.zadd(q.keys.waitingChildren, 1, 'wc');
    await q.client.zadd(q.keys.completed, 1, 'c1', 2, 'c2');
    await q.client.zadd(q.keys.failed, 1, 'f1');
    const counts = await q.ops.getCounts([
      'waiting',
      'wait',
      'paused',
      'active',
      'prioritized',
      'delayed',
      'waiting-children',
      'completed',
      'failed',
    ]);
    expect(counts).toEqual({
      waiting: 2,
      wait: 2,
      paused: 2,
      active: 1,
      prioritized: 1,
      delayed: 1,
      'waiting-children': 1,
      completed: 2,
      failed: 1,
    });
    const bq = bullQueue(track, q.name);
    expect(
      await bq.getJobCounts(
        'waiting',
        'active',
        'prioritized',
        'delayed',
        'waiting-children',
        'completed',
        'failed',
      ),
    ).toEqual({
      waiting: 2,
      active: 1,
      prioritized: 1,
      delayed: 1,
      'waiting-children': 1,
      completed: 2,
      failed: 1,
    });
  });

  it('getJobsInStates orders like bullmq getJobs, skips ids without a hash and back-fills windows', async () => {
    const q = makeQueue(track);
    const ids = await addJobs(q, [{}, {}, {}, {}, {}]); // wait (head→tail): 5 4 3 2 1
    const prio = await addJobs(q, [{ priority: 2 }, { priority: 1 }]);
    const delayed = await addJobs(q, [{ delay: 50_000 }, { delay: 40_000 }]);
    await q.client.rpush(q.keys.wait, 'ghost'); // at the tail: the "oldest" entry
    await q.client.lpush(q.keys.wait, '0:123');

    const list = async (
      types: Parameters<typeof q.ops.getJobsInStates>[0],
      start: number,
      end: number,
      asc: boolean,
    ) => (await q.ops.getJobsInStates(types, start, end, asc)).map((j) => j.id);

    expect(await list(['wait'], 0, -1, true)).toEqual(ids);
    expect(await list(['waiting'], 0, -1, false)).toEqual([...ids].reverse());
    // The window [0, 1] ascending starts at the ghost: it is replaced by the next entry.
    expect(await list(['wait'], 0, 1, true)).toEqual([ids[0], ids[1]]);
    expect(await list(['wait'], 1, 2, true)).toEqual([ids[0], ids[1]]);
    expect(await list(['wait'], 0, 1, false)).toEqual([ids[4], ids[3]]);
    expect(await list(['prioritized'], 0, -1, true)).toEqual([prio[1], prio[0]]);
    expect(await list(['delayed'], 0, -1, true)).toEqual([delayed[1], delayed[0]]);
    expect(await list(['delayed'], 0, -1, false)).toEqual([delayed[0], delayed[1]]);
    // Several states: each its own window, concatenated in the given order; 'wait' and 'waiting' once.
    expect(await list(['delayed', 'waiting', 'wait', 'prioritized'], 0, 0, true)).toEqual([
      delayed[1],
      ids[0],
      prio[1],
    ]);

    const [first] = await q.ops.getJobsInStates(['prioritized'], 0, 0, true);
    expect(first!.hash).toMatchObject({ name: 'job', priority: '1', data: '{}' });

    // The real bullmq reads the same order from our data.
    const bq = bullQueue(track, q.name);
    for (const asc of [true, false]) {
      for (const types of [
        ['waiting'],
        ['delayed', 'prioritized'],
        ['waiting', 'delayed'],
      ] as const) {
        const theirs = (await bq.getJobs([...types], 0, -1, asc)).map((j) => j.id);
        expect(await list([...types], 0, -1, asc)).toEqual(theirs);
      }
    }
  });

  it('reads bullmq-produced data (priorities, delays, lifo) in the order bullmq does', async () => {
    const q = makeQueue(track);
    const bq = bullQueue(track, q.name);
    await bq.add('a', {});
    await bq.add('b', {}, { lifo: true });
    await bq.add('c', {}, { priority: 5 });
    await bq.add('d', {}, { priority: 1 });
    await bq.add('e', {}, { delay: 30_000 });
    await bq.add('f', {}, { delay: 10_000 });
    await bq.add('g', {});
    for (const asc of [true, false]) {
      for (const types of [
        ['waiting'],
        ['prioritized'],
        ['delayed'],
        ['waiting', 'prioritized', 'delayed'],
      ] as const) {
        const theirs = (await bq.getJobs([...types], 0, -1, asc)).map((j) => j.id);
        const ours = (await q.ops.getJobsInStates([...types], 0, -1, asc)).map((j) => j.id);
        expect(ours).toEqual(theirs);
      }
      const theirs = (await bq.getJobs(['waiting'], 1, 2, asc)).map((j) => j.id);
      expect((await q.ops.getJobsInStates(['waiting'], 1, 2, asc)).map((j) => j.id)).toEqual(
        theirs,
      );
    }
  });

  it('getState matches bullmq getJobState for every state', async () => {
    const q = makeQueue(track);
    const [w, p, d, a] = await addJobs(q, [{}, { priority: 2 }, { delay: 60_000 }, {}]);
    // fetch takes the tail of wait: the first added job is activated, so re-check ids.
    const active = await activate(q);
    await q.client.zadd(q.keys.completed, 1, 'done');
    await q.client.zadd(q.keys.failed, 1, 'bad');
    await q.client.zadd(q.keys.waitingChildren, 1, 'parent');
    await q.client.rpush(q.keys.paused, 'legacy');
    const bq = bullQueue(track, q.name);
    const expected: Record<string, string> = {
      [active]: 'active',
      [active === w ? a! : w!]: 'waiting',
      [p!]: 'prioritized',
      [d!]: 'delayed',
      done: 'completed',
      bad: 'failed',
      parent: 'waiting-children',
      legacy: 'waiting',
      nowhere: 'unknown',
    };
    for (const [id, state] of Object.entries(expected)) {
      expect(await q.ops.getState(id)).toBe(state);
      expect(await bq.getJobState(id)).toBe(state);
    }
  });

  it('getLogs pages ascending from the oldest line and descending from the newest', async () => {
    const q = makeQueue(track);
    const [id] = await addJobs(q, [{}]);
    for (const line of ['l0', 'l1', 'l2', 'l3']) await q.backend.addLog(id!, line);
    expect(await q.ops.getLogs(id!, 0, -1, true)).toEqual({
      logs: ['l0', 'l1', 'l2', 'l3'],
      count: 4,
    });
    expect(await q.ops.getLogs(id!, 0, 1, true)).toEqual({ logs: ['l0', 'l1'], count: 4 });
    expect(await q.ops.getLogs(id!, 0, 1, false)).toEqual({ logs: ['l3', 'l2'], count: 4 });
    expect(await q.ops.getLogs(id!, 1, -1, false)).toEqual({ logs: ['l2', 'l1', 'l0'], count: 4 });
    const bq = bullQueue(track, q.name);
    expect(await bq.getJobLogs(id!, 0, 1, false)).toEqual({ logs: ['l3', 'l2'], count: 4 });
    expect(await q.ops.getMeta()).toMatchObject({ 'opts.maxLenEvents': '10000' });
  });
});

describe('pause and resume', () => {
  it('pause sets meta.paused and drops the marker; resume re-adds it; bullmq agrees', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}]);
    const before = (await events(q.client, q.keys)).length;
    await q.ops.pause();
    expect(await q.client.hget(q.keys.meta, 'paused')).toBe('1');
    expect(await q.client.exists(q.keys.marker)).toBe(0);
    expect(await q.ops.isPaused()).toBe(true);
    const bq = bullQueue(track, q.name);
    expect(await bq.isPaused()).toBe(true);
    // Adds while paused write no "0" marker.
    await addJobs(q, [{}]);
    expect(await q.client.exists(q.keys.marker)).toBe(0);
    expect(await q.backend.fetchNextJob({ token: 't', lockDuration: 1000 })).toMatchObject({
      kind: 'none',
    });

    await q.ops.resume();
    expect(await q.client.hexists(q.keys.meta, 'paused')).toBe(0);
    expect(await q.client.zrange(q.keys.marker, 0, -1, 'WITHSCORES')).toEqual(['0', '0']);
    expect(await q.ops.isPaused()).toBe(false);
    expect(await bq.isPaused()).toBe(false);
    const emitted = (await eventsSince(q.client, q.keys, before)).map((e) => e.event);
    expect(emitted).toEqual(['paused', 'added', 'waiting', 'resumed']);
    expect(await q.client.exists(q.keys.paused)).toBe(0);
  });

  it('resume with only delayed jobs writes the delayed marker', async () => {
    const q = makeQueue(track);
    const timestamp = Date.now();
    await addJobs(q, [{ delay: 5000, timestamp }]);
    await q.ops.pause();
    await q.ops.resume();
    expect(await q.client.zrange(q.keys.marker, 0, -1, 'WITHSCORES')).toEqual([
      '1',
      String(timestamp + 5000),
    ]);
  });

  it('resume migrates a legacy paused list (in chunks of 7000) to the front of wait, in order', async () => {
    const q = makeQueue(track);
    const [fresh] = await addJobs(q, [{}]);
    const legacy = Array.from({ length: 7500 }, (_, i) => `L${i}`);
    for (let i = 0; i < legacy.length; i += 2500)
      await q.client.rpush(q.keys.paused, ...legacy.slice(i, i + 2500));
    const before = (await events(q.client, q.keys)).length;
    await q.ops.pause();
    await q.ops.resume();
    expect(await q.client.exists(q.keys.paused)).toBe(0);
    const wait = await q.client.lrange(q.keys.wait, 0, -1);
    expect(wait).toEqual([fresh, ...legacy]);
    const emitted = (await eventsSince(q.client, q.keys, before)).map((e) => e.event);
    expect(emitted).toEqual(['paused', 'resumed']);
  });

  it('resume renames the legacy list when wait is empty', async () => {
    const q = makeQueue(track);
    await q.client.rpush(q.keys.paused, 'a', 'b');
    await q.ops.resume();
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual(['a', 'b']);
    expect(await q.client.exists(q.keys.paused)).toBe(0);
  });
});

describe('drain', () => {
  it('removes wait, legacy paused and prioritized jobs, keeps delayed unless asked, no events', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}, { priority: 4 }, { delay: 60_000 }, { fields: { deid: 'd1' } }]);
    await q.client.set(q.keys.base + 'de:d1', '5');
    await q.client.rpush(q.keys.paused, 'legacy');
    await q.client.hset(q.keys.job('legacy'), 'name', 'x');
    const activeId = await activate(q);
    const before = (await events(q.client, q.keys)).length;

    // wait 2 5 (1 is active), prioritized 3, legacy paused; 4 is delayed.
    expect(await q.ops.drain(false)).toBe(4);
    expect(await q.client.exists(q.keys.wait, q.keys.paused, q.keys.prioritized, q.keys.pc)).toBe(
      0,
    );
    expect(await zmembers(q.client, q.keys.delayed)).toEqual(['4']);
    expect(await q.client.exists(q.keys.base + 'de:d1')).toBe(0);
    expect((await events(q.client, q.keys)).length).toBe(before);
    expect((await jobKeys(q.client, q.name)).sort()).toEqual([activeId, `${activeId}:lock`, '4']);

    expect(await q.ops.drain(true)).toBe(1);
    expect(await jobKeys(q.client, q.name)).toEqual([activeId, `${activeId}:lock`]);
    expect(await q.client.lrange(q.keys.active, 0, -1)).toEqual([activeId]);
  });

  it('drains more than one chunk and keeps the pending iteration of each job scheduler', async () => {
    const q = makeQueue(track);
    const total = DEFAULTS.chunkSize * 2 + 17;
    const batch = Array.from({ length: total }, (_, i) =>
      i % 3 === 0 ? { priority: 1 + (i % 5) } : {},
    );
    for (let i = 0; i < batch.length; i += 500) await addJobs(q, batch.slice(i, i + 500));
    const bq = bullQueue(track, q.name);
    await bq.upsertJobScheduler('every', { every: 60_000 }, { name: 'tick' });
    await bq.upsertJobScheduler(
      'later',
      { every: 60_000, startDate: Date.now() + 3_600_000 },
      { name: 'later' },
    );
    const schedulerJobs = (await jobKeys(q.client, q.name)).filter((k) => k.startsWith('repeat:'));
    expect(schedulerJobs).toHaveLength(2);

    expect(await q.ops.drain(true)).toBe(total);
    expect((await jobKeys(q.client, q.name)).sort()).toEqual(schedulerJobs.sort());
    expect(await bq.getJobCounts('waiting', 'prioritized', 'delayed')).toEqual({
      waiting: schedulerJobs.some((k) => k.startsWith('repeat:every:')) ? 1 : 0,
      prioritized: 0,
      delayed: 1,
    });
  });
});

describe('clean', () => {
  it('removes finished jobs by finishedOn, with a limit, and emits cleaned', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}, {}, {}]);
    const old = Date.now() - 60_000;
    const c1 = await finishNext(q, 'completed', old);
    const c2 = await finishNext(q, 'completed', old + 1);
    const c3 = await finishNext(q, 'completed');
    const f1 = await finishNext(q, 'failed', old);
    const before = (await events(q.client, q.keys)).length;

    expect(await q.ops.clean(10_000, 1, 'completed')).toEqual([c1]);
    expect(await q.ops.clean(10_000, 0, 'completed')).toEqual([c2]);
    expect(await zmembers(q.client, q.keys.completed)).toEqual([c3]);
    expect(await q.ops.clean(10_000, 0, 'failed')).toEqual([f1]);
    expect(await q.client.exists(q.keys.failed)).toBe(0);
    expect(await jobKeys(q.client, q.name)).toEqual([c3]);
    expect(
      (await eventsSince(q.client, q.keys, before)).map((e) => `${e.event}:${e.count}`),
    ).toEqual(['cleaned:1', 'cleaned:1', 'cleaned:1']);
    expect(await q.ops.clean(10_000, 0, 'failed')).toEqual([]);
    expect((await events(q.client, q.keys)).at(-1)).toEqual({ event: 'cleaned', count: '0' });
  });

  it('wait: judges timestamp, scans the oldest `limit` entries like bullmq, drops owned dedup keys', async () => {
    const q = makeQueue(track);
    const now = Date.now();
    // wait head→tail: 5 4 3 2 1; jobs 1 and 2 (the oldest entries) have future timestamps.
    const ids = await addJobs(q, [
      { timestamp: now + 100_000 },
      { timestamp: now + 100_000 },
      { timestamp: now - 100_000, fields: { deid: 'dd' } },
      { timestamp: now - 100_000 },
      { timestamp: now - 100_000 },
    ]);
    await q.client.set(q.keys.base + 'de:dd', ids[2]!);
    expect(await q.ops.clean(1000, 2, 'wait')).toEqual([]);
    expect(await q.ops.clean(1000, 3, 'wait')).toEqual([ids[2]]);
    expect(await q.client.exists(q.keys.base + 'de:dd')).toBe(0);
    expect(await q.ops.clean(1000, 0, 'wait')).toEqual([ids[3], ids[4]]);
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([ids[1], ids[0]]);
    expect((await jobKeys(q.client, q.name)).sort()).toEqual([ids[0], ids[1]].sort());
  });

  it('cleans across several chunks and keeps locked active jobs', async () => {
    const q = makeQueue(track);
    const old = Date.now() - 100_000;
    const total = DEFAULTS.chunkSize + 250;
    const batch = Array.from({ length: total }, () => ({ timestamp: old }));
    for (let i = 0; i < batch.length; i += 500) await addJobs(q, batch.slice(i, i + 500));
    // Keep a few new ones interleaved at the tail so the scan has to step over them.
    const fresh = await addJobs(q, [{}, {}]);
    const locked = await activate(q);
    const unlockedActive = await activate(q);
    await q.client.del(q.keys.jobLock(unlockedActive));
    await q.client.hset(q.keys.job(locked), 'processedOn', old);
    await q.client.hset(q.keys.job(unlockedActive), 'processedOn', old);

    const removed = await q.ops.clean(1000, 0, 'wait');
    expect(removed).toHaveLength(total - 2);
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([...fresh].reverse());
    expect(await q.ops.clean(1000, 0, 'active')).toEqual([unlockedActive]);
    expect(await q.client.lrange(q.keys.active, 0, -1)).toEqual([locked]);
    const cleaned = (await events(q.client, q.keys)).filter((e) => e.event === 'cleaned');
    expect(cleaned.reduce((sum, e) => sum + Number(e.count), 0)).toBe(total - 1);
  });

  it('delayed judges processedOn then timestamp; prioritized timestamp; schedulers are kept', async () => {
    const q = makeQueue(track);
    const now = Date.now();
    const [d1, d2, p1, p2] = await addJobs(q, [
      { delay: 1000, timestamp: now - 50_000 },
      { delay: 1000, timestamp: now - 50_000 },
      { priority: 3, timestamp: now - 50_000 },
      { priority: 3 },
    ]);
    await q.client.hset(q.keys.job(d2!), 'processedOn', now);
    const bq = bullQueue(track, q.name);
    await bq.upsertJobScheduler('s', { every: 60_000, startDate: now + 3_600_000 }, { name: 't' });
    await q.client.hset(
      q.keys.base + `repeat:s:${await q.client.zscore(q.keys.repeat, 's')}`,
      'timestamp',
      now - 50_000,
    );
    expect(await q.ops.clean(1000, 0, 'delayed')).toEqual([d1]);
    expect(await zmembers(q.client, q.keys.delayed)).toContain(d2);
    expect(await q.ops.clean(1000, 0, 'prioritized')).toEqual([p1]);
    expect(await zmembers(q.client, q.keys.prioritized)).toEqual([p2]);
  });
});

describe('obliterate', () => {
  it('refuses a non-paused queue and active jobs without force', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}]);
    await activate(q);
    await expect(q.ops.obliterate({ force: false, count: 1000 })).rejects.toThrow(QueueStateError);
    await expect(q.ops.obliterate({ force: false, count: 1000 })).rejects.toThrow(
      'Cannot obliterate non-paused queue',
    );
    await q.ops.pause();
    await expect(q.ops.obliterate({ force: false, count: 1000 })).rejects.toThrow(
      'Cannot obliterate queue with active jobs',
    );
    expect((await jobKeys(q.client, q.name)).sort()).toEqual(['1', '1:lock', '2']);
  });

  it('with force removes every job, scheduler and queue key, a few per call', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}, {}, { priority: 2 }, { delay: 10_000 }, { fields: { deid: 'x' } }]);
    await q.client.set(q.keys.base + 'de:x', '6');
    await q.client.set(q.keys.base + 'de:other', 'gone');
    await finishNext(q, 'completed');
    await finishNext(q, 'failed');
    await activate(q);
    await q.backend.addLog('3', 'log line');
    await q.client.zadd(q.keys.waitingChildren, 1, 'parent');
    await q.client.hset(q.keys.job('parent'), 'name', 'p');
    await q.client.sadd(q.keys.job('parent') + ':dependencies', 'bull:elsewhere:1');
    await q.client.rpush(q.keys.paused, 'legacy');
    await q.client.hset(q.keys.job('legacy'), 'name', 'l');
    await q.client.zadd(q.keys.repeat, 1, 'sch');
    await q.client.hset(q.keys.base + 'repeat:sch', 'name', 'x', 'ic', 1);
    await q.ops.setGlobalRateLimit({ max: 1, duration: 1000 });
    await q.client.set(q.keys.limiter, 1);
    await q.client.hset(q.keys.metrics('completed'), 'count', 1);
    await q.client.lpush(q.keys.metrics('completed') + ':data', 1);
    await q.client.set(q.keys.base + 'delay', 1);
    await q.ops.pause();

    await q.ops.obliterate({ force: true, count: 3 });
    // Ownerless dedup keys are left, as bullmq leaves them.
    expect(await queueKeys(q.client, q.name)).toEqual(['de:other']);
  });

  it('obliterates bullmq-produced data completely', async () => {
    const q = makeQueue(track);
    const bq = bullQueue(track, q.name);
    await bq.add('a', { x: 1 });
    await bq.add('b', {}, { lifo: true });
    await bq.add('c', {}, { priority: 7 });
    await bq.add('d', {}, { delay: 5000 });
    await bq.add('e', {}, { deduplication: { id: 'dd' } });
    await bq.upsertJobScheduler('s1', { every: 1000 }, { name: 'tick' });
    await bq.upsertJobScheduler('s2', { pattern: '0 0 * * *' }, { name: 'cron' });
    await finishNext(q, 'completed');
    await q.ops.pause();
    await q.ops.obliterate({ force: true, count: 2 });
    expect(await queueKeys(q.client, q.name)).toEqual([]);
    expect(await bq.getJobCounts()).toEqual({
      active: 0,
      completed: 0,
      delayed: 0,
      failed: 0,
      prioritized: 0,
      waiting: 0,
      'waiting-children': 0,
    });
  });
});

describe('removeJob', () => {
  it('removes a job from its state with a removed event; locked jobs are left alone', async () => {
    const q = makeQueue(track);
    const [a, b, c] = await addJobs(q, [
      {},
      { priority: 1 },
      { delay: 1000, fields: { deid: 'r' } },
    ]);
    await q.client.set(q.keys.base + 'de:r', c!);
    const locked = await activate(q);
    expect(locked).toBe(a);
    await q.backend.addLog(b!, 'x');
    const before = (await events(q.client, q.keys)).length;

    expect(await q.ops.removeJob(locked, false)).toBe(0);
    expect(await q.client.exists(q.keys.job(locked))).toBe(1);
    expect(await q.ops.removeJob(b!, false)).toBe(1);
    expect(await q.ops.removeJob(c!, false)).toBe(1);
    expect(await q.ops.removeJob('missing', false)).toBe(1);
    expect(
      await q.client.exists(
        q.keys.job(b!),
        q.keys.jobLogs(b!),
        q.keys.job(c!),
        q.keys.base + 'de:r',
      ),
    ).toBe(0);
    expect(await q.client.exists(q.keys.prioritized, q.keys.delayed)).toBe(0);
    expect(await eventsSince(q.client, q.keys, before)).toEqual([
      { event: 'removed', jobId: b, prev: 'prioritized' },
      { event: 'removed', jobId: c, prev: 'delayed' },
    ]);
    await q.client.del(q.keys.jobLock(locked));
    expect(await q.ops.removeJob(locked, false)).toBe(1);
    expect(await q.client.exists(q.keys.active)).toBe(0);
  });

  it("refuses a scheduler's pending iteration", async () => {
    const q = makeQueue(track);
    const bq = bullQueue(track, q.name);
    const job = await bq.upsertJobScheduler('s', { every: 60_000 }, { name: 't' });
    await expect(q.ops.removeJob(job!.id!, false)).rejects.toThrow(JobBelongsToSchedulerError);
    expect(await q.client.exists(q.keys.job(job!.id!))).toBe(1);
  });

  it('removing the last pending child releases the parent to the front of its wait list', async () => {
    const parentQ = makeQueue(track, 'parent');
    const childQ = makeQueue(track, 'child');
    const [waiting] = await addJobs(parentQ, [{}]);
    await parentQ.client.hset(
      parentQ.keys.job('p'),
      'name',
      'p',
      'data',
      '{}',
      'opts',
      '{}',
      'timestamp',
      1,
      'delay',
      0,
      'priority',
      0,
    );
    await parentQ.client.zadd(parentQ.keys.waitingChildren, 1, 'p');
    const [c1, c2] = await addJobs(childQ, [
      {
        fields: {
          parentKey: parentQ.keys.job('p'),
          parent: JSON.stringify({ id: 'p', queueKey: parentQ.keys.queueKey }),
        },
      },
      {
        fields: {
          parentKey: parentQ.keys.job('p'),
          parent: JSON.stringify({ id: 'p', queueKey: parentQ.keys.queueKey }),
        },
      },
    ]);
    await parentQ.client.sadd(
      parentQ.keys.job('p') + ':dependencies',
      childQ.keys.job(c1!),
      childQ.keys.job(c2!),
    );
    const before = (await events(parentQ.client, parentQ.keys)).length;

    expect(await childQ.ops.removeJob(c1!, false)).toBe(1);
    expect(await parentQ.client.zscore(parentQ.keys.waitingChildren, 'p')).toBe('1');
    expect(await childQ.ops.removeJob(c2!, false)).toBe(1);
    expect(await parentQ.client.exists(parentQ.keys.waitingChildren)).toBe(0);
    expect(await parentQ.client.lrange(parentQ.keys.wait, 0, -1)).toEqual([waiting, 'p']);
    expect(await parentQ.client.zrange(parentQ.keys.marker, 0, -1)).toEqual(['0']);
    expect(await eventsSince(parentQ.client, parentQ.keys, before)).toEqual([
      { event: 'waiting', jobId: 'p', prev: 'waiting-children' },
    ]);
  });

  it('removes a bullmq flow with all its descendants across queues', async () => {
    const { FlowProducer } = await import('bullmq');
    const { redisOptions } = await import('../helpers/redis');
    const parentQ = makeQueue(track, 'fp');
    const childQ = makeQueue(track, 'fc');
    const flow = track(new FlowProducer({ connection: redisOptions() }));
    const tree = await flow.add({
      name: 'root',
      queueName: parentQ.name,
      children: [
        { name: 'c1', queueName: childQ.name, children: [{ name: 'gc', queueName: childQ.name }] },
        { name: 'c2', queueName: parentQ.name },
      ],
    });
    // Complete c2 and record it in the root's :processed hash, as a finished child would be.
    const c2 = await finishNext(parentQ, 'completed');
    const rootKey = parentQ.keys.job(tree.job.id!);
    await parentQ.client.srem(rootKey + ':dependencies', parentQ.keys.job(c2));
    await parentQ.client.hset(rootKey + ':processed', parentQ.keys.job(c2), '"done"');
    const before = (await events(childQ.client, childQ.keys)).length;
    expect(await parentQ.ops.removeJob(tree.job.id!, true)).toBe(1);
    expect(await jobKeys(parentQ.client, parentQ.name)).toEqual([]);
    expect(await jobKeys(childQ.client, childQ.name)).toEqual([]);
    expect(
      await parentQ.client.exists(
        parentQ.keys.completed,
        parentQ.keys.waitingChildren,
        childQ.keys.wait,
        childQ.keys.waitingChildren,
      ),
    ).toBe(0);
    const removedInChild = (await eventsSince(childQ.client, childQ.keys, before)).map(
      (e) => `${e.event}:${e.prev}`,
    );
    expect(removedInChild).toEqual(['removed:wait', 'removed:waiting-children']);
  });

  it('with removeChildren leaves the whole tree when a descendant is locked', async () => {
    const q = makeQueue(track);
    const [child] = await addJobs(q, [{ fields: { parentKey: q.keys.job('p') } }]);
    await q.client.hset(q.keys.job('p'), 'name', 'p');
    await q.client.zadd(q.keys.waitingChildren, 1, 'p');
    await q.client.sadd(q.keys.job('p') + ':dependencies', q.keys.job(child!));
    await activate(q);
    expect(await q.ops.removeJob('p', true)).toBe(0);
    expect(await q.client.exists(q.keys.job('p'), q.keys.job(child!))).toBe(2);
  });
});

describe('job moves', () => {
  it('retryJobs moves failed jobs back to wait in chunks, clearing their result', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}, {}, {}, {}]);
    const failed: string[] = [];
    for (let i = 0; i < 5; i++) failed.push(await finishNext(q, 'failed', Date.now() - 1000 + i));
    const before = (await events(q.client, q.keys)).length;
    await q.ops.retryJobs('failed', 2, Date.now());
    expect(await q.client.exists(q.keys.failed)).toBe(0);
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([...failed].reverse());
    const hash = await q.client.hgetall(q.keys.job(failed[0]!));
    expect(hash).not.toHaveProperty('finishedOn');
    expect(hash).not.toHaveProperty('processedOn');
    expect(hash).not.toHaveProperty('failedReason');
    expect(hash.atm).toBe('1');
    expect(await eventsSince(q.client, q.keys, before)).toEqual(
      failed.map((jobId) => ({ event: 'waiting', jobId, prev: 'failed' })),
    );
    expect(await q.client.zrange(q.keys.marker, 0, -1)).toContain('0');
  });

  it('retryJobs honours the timestamp; promoteJobs moves all delayed jobs ignoring priority', async () => {
    const q = makeQueue(track);
    await addJobs(q, [{}, {}]);
    const oldOne = await finishNext(q, 'completed', Date.now() - 10_000);
    const newOne = await finishNext(q, 'completed');
    await q.ops.retryJobs('completed', 100, Date.now() - 5000);
    expect(await zmembers(q.client, q.keys.completed)).toEqual([newOne]);
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([oldOne]);
    expect(await q.client.hexists(q.keys.job(oldOne), 'returnvalue')).toBe(0);

    const [d1, d2] = await addJobs(q, [{ delay: 5000 }, { delay: 1000, priority: 3 }]);
    await q.ops.pause();
    await q.ops.promoteJobs(1);
    expect(await q.client.exists(q.keys.delayed)).toBe(0);
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([d1, d2, oldOne]);
    expect(await q.client.exists(q.keys.marker)).toBe(0);
    expect(await q.client.hget(q.keys.job(d1!), 'delay')).toBe('5000');
  });

  it('reprocessJob re-queues a finished job; missing or wrong state throw', async () => {
    const q = makeQueue(track);
    const [a, , c] = await addJobs(q, [{}, {}, { priority: 6 }]);
    const done = await finishNext(q, 'completed');
    const failed = await finishNext(q, 'failed');
    expect(done).toBe(a);
    await expect(
      q.ops.reprocessJob('nope', 'completed', {
        lifo: false,
        resetAttemptsMade: false,
        resetAttemptsStarted: false,
      }),
    ).rejects.toThrow(JobNotFoundError);
    await expect(
      q.ops.reprocessJob(done, 'failed', {
        lifo: false,
        resetAttemptsMade: false,
        resetAttemptsStarted: false,
      }),
    ).rejects.toThrow(JobNotInStateError);
    const [fresh] = await addJobs(q, [{}]);
    const before = (await events(q.client, q.keys)).length;
    await q.ops.reprocessJob(done, 'completed', {
      lifo: true,
      resetAttemptsMade: true,
      resetAttemptsStarted: false,
    });
    await q.ops.reprocessJob(failed, 'failed', {
      lifo: false,
      resetAttemptsMade: false,
      resetAttemptsStarted: true,
    });
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([failed, fresh, done]);
    const doneHash = await q.client.hgetall(q.keys.job(done));
    expect(doneHash).not.toHaveProperty('atm');
    expect(doneHash).not.toHaveProperty('returnvalue');
    expect(doneHash.ats).toBe('1');
    const failedHash = await q.client.hgetall(q.keys.job(failed));
    expect(failedHash).not.toHaveProperty('ats');
    expect(failedHash).not.toHaveProperty('failedReason');
    expect(failedHash.atm).toBe('1');
    expect(await eventsSince(q.client, q.keys, before)).toEqual([
      { event: 'waiting', jobId: done, prev: 'completed' },
      { event: 'waiting', jobId: failed, prev: 'failed' },
    ]);
    expect(await zmembers(q.client, q.keys.prioritized)).toEqual([c]);
  });

  it('promoteJob, changeDelay and changePriority write what bullmq writes', async () => {
    const q = makeQueue(track);
    const [d1, d2, w1, p1] = await addJobs(q, [
      { delay: 60_000, priority: 2 },
      { delay: 60_000 },
      {},
      { priority: 5 },
    ]);
    await expect(q.ops.promoteJob(w1!)).rejects.toThrow(JobNotInStateError);
    const before = (await events(q.client, q.keys)).length;
    await q.ops.promoteJob(d1!);
    expect(await zmembers(q.client, q.keys.prioritized)).toEqual([d1, p1]);
    expect(await q.client.hget(q.keys.job(d1!), 'delay')).toBe('0');

    await expect(q.ops.changeDelay('nope', 10)).rejects.toThrow(JobNotFoundError);
    await expect(q.ops.changeDelay(w1!, 10)).rejects.toThrow(JobNotInStateError);
    const now = Date.now();
    await q.ops.changeDelay(d2!, 2000);
    const score = (await zscores(q.client, q.keys.delayed))[d2!]!;
    const due = Math.floor(score / 4096);
    expect(due).toBeGreaterThanOrEqual(now + 2000);
    expect(due).toBeLessThan(now + 2500);
    expect(score % 4096).toBe(0);
    expect(await q.client.hget(q.keys.job(d2!), 'delay')).toBe('2000');
    expect(await q.client.zscore(q.keys.marker, '1')).toBe(String(due));

    await q.ops.changePriority(w1!, 3, false);
    await q.ops.changePriority(p1!, 3, true);
    await q.ops.changePriority(d1!, 0, true);
    expect(await zscores(q.client, q.keys.prioritized)).toEqual({
      [p1!]: 3 * 2 ** 32,
      [w1!]: 3 * 2 ** 32 + 3,
    });
    expect(await q.client.lrange(q.keys.wait, 0, -1)).toEqual([d1]);
    await q.ops.changePriority(d2!, 9, false);
    expect(await q.client.hget(q.keys.job(d2!), 'priority')).toBe('9');
    expect(await zmembers(q.client, q.keys.delayed)).toEqual([d2]);
    await expect(q.ops.changePriority('nope', 1, false)).rejects.toThrow(JobNotFoundError);
    expect(await eventsSince(q.client, q.keys, before)).toEqual([
      { event: 'waiting', jobId: d1, prev: 'delayed' },
      { event: 'delayed', jobId: d2, delay: String(due) },
    ]);
  });
});

describe('limits and workers', () => {
  it('global concurrency and rate limit live in meta; rateLimit sets the limiter key', async () => {
    const q = makeQueue(track);
    const bq = bullQueue(track, q.name);
    await q.ops.setGlobalConcurrency(3);
    await q.ops.setGlobalRateLimit({ max: 2, duration: 5000 });
    expect(await q.client.hmget(q.keys.meta, 'concurrency', 'max', 'duration')).toEqual([
      '3',
      '2',
      '5000',
    ]);
    expect(await bq.getGlobalConcurrency()).toBe(3);
    expect(await q.ops.getRateLimitTtl()).toBe(0);
    await q.client.set(q.keys.limiter, 2, 'PX', 4000);
    const ttl = await q.ops.getRateLimitTtl();
    expect(ttl).toBeGreaterThan(3000);
    expect(await q.ops.getRateLimitTtl(3)).toBe(0);
    expect(Math.abs((await bq.getRateLimitTtl()) - ttl)).toBeLessThan(200);
    await q.ops.setGlobalConcurrency(undefined);
    await q.ops.setGlobalRateLimit(undefined);
    expect(await q.client.hmget(q.keys.meta, 'concurrency', 'max', 'duration')).toEqual([
      null,
      null,
      null,
    ]);
    // Without any max: the raw PTTL.
    expect(
      Math.abs((await q.ops.getRateLimitTtl()) - (await q.client.pttl(q.keys.limiter))),
    ).toBeLessThan(50);

    await q.ops.rateLimit(1234);
    expect(await q.client.get(q.keys.limiter)).toBe('9007199254740991');
    expect(await q.client.pttl(q.keys.limiter)).toBeGreaterThan(1000);
    expect(await q.ops.getRateLimitTtl(5)).toBeGreaterThan(1000);
    await q.client.del(q.keys.limiter);
    expect(await q.ops.getRateLimitTtl()).toBe(-2);
  });

  it('getWorkerClients lists the connections named as workers of the queue', async () => {
    const q = makeQueue(track, 'wk');
    const b64 = Buffer.from(q.name).toString('base64');
    const { redisOptions } = await import('../helpers/redis');
    const named = track(new Redis({ ...redisOptions(), connectionName: `bull:${b64}:w:w1` }));
    const plain = track(new Redis({ ...redisOptions(), connectionName: `bull:${b64}` }));
    const events = track(new Redis({ ...redisOptions(), connectionName: `bull:${b64}:qe` }));
    await Promise.all([named.ping(), plain.ping(), events.ping()]);
    const clients = await new RedisChores(q.client, q.keys).getWorkerClients();
    expect(clients.map((c) => c.name).sort()).toEqual([`bull:${b64}`, `bull:${b64}:w:w1`]);
    expect(clients[0]).toHaveProperty('addr');
    const bq = bullQueue(track, q.name);
    expect((await bq.getWorkers()).length).toBe(2);
  });
});

describe('validation', () => {
  it('rejects bad arguments before touching Redis', async () => {
    // A client that never connects: any Redis call would fail with a connection error instead.
    const offline = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const ops = new RedisQueueOperations(offline, new QueueKeys('bull', 'never'));
    const bad: (() => Promise<unknown>)[] = [
      () => ops.getCounts(['bogus' as never]),
      () => ops.getJobsInStates(['wait'], 1.5, 10, true),
      () => ops.getJobsInStates(['nope' as never], 0, 10, true),
      () => ops.clean(-1, 0, 'completed'),
      () => ops.clean(0, -5, 'completed'),
      () => ops.clean(0, 0, 'waiting-children' as never),
      () => ops.obliterate({ force: true, count: 0 }),
      () => ops.retryJobs('failed', -1, Date.now()),
      () => ops.retryJobs('delayed' as never, 10, Date.now()),
      () => ops.promoteJobs(0),
      () => ops.changePriority('1', 2_097_152, false),
      () => ops.changePriority('1', -1, false),
      () => ops.changePriority('1', 1.5, false),
      () => ops.changeDelay('1', Number.NaN),
      () => ops.changeDelay('1', Number.POSITIVE_INFINITY),
      () => ops.changeDelay('1', -1),
      () => ops.rateLimit(0),
      () => ops.setGlobalConcurrency(0),
      () => ops.setGlobalRateLimit({ max: 0, duration: 1000 }),
      () => ops.removeJob('', false),
      () => ops.getLogs('1', 0, Number.NaN, true),
    ];
    for (const call of bad) await expect(call()).rejects.toThrow(ValidationError);
    offline.disconnect();
  });
});
