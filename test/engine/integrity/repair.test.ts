/**
 * The safe repairs (docs/integrity.md, "Repairs") on states broken by hand with raw Redis
 * commands: each repairable finding is repaired, the checker is clean afterwards and the queue's
 * other data is kept; a worker then processes the recovered jobs.
 */
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Worker } from 'oxmq';
import {
  checkQueueIntegrityToEnd,
  createAdmin,
  repairIntegrityFindings,
  repairQueueIntegrityStep,
  repairQueueIntegrityToEnd,
} from 'oxmq/admin';
import { useCleanup } from '../../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../../helpers/redis';
import { brokenQueue } from './broken-queue';

const track = useCleanup();

function setUp(label: string) {
  const fixture = brokenQueue(track, label);
  const { name, redis, ref, check } = fixture;
  const repair = async () => repairIntegrityFindings(redis, ref, await check());
  /** Runs a worker until `count` jobs completed; returns their names in completion order. */
  const process = async (count: number) => {
    const done: string[] = [];
    track(
      new Worker(
        name,
        async (job) => {
          done.push(job.name);
        },
        { connection: redisOptions(), stalledInterval: 200 },
      ),
    );
    await waitFor(() => done.length >= count, 10_000);
    return done;
  };
  return { ...fixture, repair, process };
}

describe('repairIntegrityFindings', () => {
  it('member-without-hash: removes the dangling ids of wait and of a group line', async () => {
    const { redis, queue, key, check, repair, process } = setUp('repair-nohash');
    const a = await queue.add('a', {});
    const b = await queue.add('b', {});
    const g = await queue.add('g', {}, { group: { id: 'acme' } });
    await redis.del(key(a.id!), key(g.id!));
    expect((await check()).counts['member-without-hash']).toBe(2);

    const repairs = await repair();
    expect(repairs).toEqual([
      expect.objectContaining({ code: 'member-without-hash', jobId: a.id, applied: true }),
      expect.objectContaining({ code: 'member-without-hash', jobId: g.id, applied: true }),
    ]);
    expect(repairs[1]!.action).toContain('group:acme:wait');
    expect((await check()).clean).toBe(true);
    expect(await redis.lrange(key('wait'), 0, -1)).toEqual([b.id]);
    // The emptied group line left the ring of groups with ready jobs.
    expect(await redis.lrange(key('groups'), 0, -1)).toEqual([]);
    expect(await process(1)).toEqual(['b']);
  });

  it('active-unlocked: marks the job stalled, and the stalled check hands it to a worker', async () => {
    const { redis, queue, key, check, repair, process } = setUp('repair-unlocked');
    const a = await queue.add('a', { keep: 1 });
    await redis.lrem(key('wait'), 1, a.id!);
    await redis.lpush(key('active'), a.id!);
    expect((await check()).counts['active-unlocked']).toBe(1);

    expect(await repair()).toEqual([
      {
        code: 'active-unlocked',
        jobId: a.id,
        action: 'mark stalled, for the next stalled check to recover: marked stalled',
        applied: true,
      },
    ]);
    expect(await redis.smembers(key('stalled'))).toEqual([a.id]);
    expect((await check()).clean).toBe(true);
    expect(await redis.hget(key(a.id!), 'data')).toBe('{"keep":1}');
    expect(await process(1)).toEqual(['a']);
    // The processor has returned; its completion reaches Redis a moment later.
    await waitFor(async () =>
      (await redis.zscore(key('completed'), a.id!)) !== null ? true : null,
    );
  });

  it('priority-counter: raises pc so later jobs of that priority queue behind', async () => {
    const { redis, queue, key, check, repair, process } = setUp('repair-pc');
    await queue.add('a', {}, { priority: 2 });
    const b = await queue.add('b', {}, { priority: 2 });
    await redis.set(key('pc'), 1);
    expect((await check()).counts['priority-counter']).toBe(1);

    expect(await repair()).toEqual([
      expect.objectContaining({ code: 'priority-counter', jobId: b.id, applied: true }),
    ]);
    expect(await redis.get(key('pc'))).toBe('2');
    expect((await check()).clean).toBe(true);
    await queue.add('c', {}, { priority: 2 });
    expect(await process(3)).toEqual(['a', 'b', 'c']);
  });

  it('events-over-cap: trims the stream to its cap', async () => {
    const { redis, queue, key, check, repair } = setUp('repair-events');
    await queue.add('a', {});
    await redis.hset(key('meta'), 'opts.maxLenEvents', 10);
    const pipeline = redis.pipeline();
    for (let i = 0; i < 1500; i++) pipeline.xadd(key('events'), '*', 'event', 'filler');
    await pipeline.exec();
    expect((await check()).counts['events-over-cap']).toBe(1);

    expect(await repair()).toEqual([
      expect.objectContaining({ code: 'events-over-cap', jobId: null, applied: true }),
    ]);
    expect(await redis.xlen(key('events'))).toBeLessThanOrEqual(1010);
    expect((await check()).clean).toBe(true);
  });

  it('hash-without-state: puts finished jobs back, leaves an unfinished one report-only', async () => {
    const { redis, queue, key, check, repair } = setUp('repair-orphan');
    const ok = await queue.add('ok', {});
    const bad = await queue.add('bad', {});
    await queue.add('waiting-later', {});
    track(
      new Worker(
        queue.name,
        async (job) => {
          if (job.name === 'bad') throw new Error('boom');
          return 42;
        },
        { connection: redisOptions(), autorun: true },
      ),
    ).on('error', () => undefined);
    await waitFor(async () => (await redis.zcard(key('completed'))) === 2, 10_000);
    await waitFor(async () => (await redis.zcard(key('failed'))) === 1, 10_000);
    const unfinished = await queue.add('unfinished', {}, { delay: 60_000 });
    const okScore = await redis.zscore(key('completed'), ok.id!);
    await redis.zrem(key('completed'), ok.id!);
    await redis.zrem(key('failed'), bad.id!);
    await redis.zrem(key('delayed'), unfinished.id!);
    expect((await check()).counts['hash-without-state']).toBe(3);

    const repairs = await repair();
    const byId = Object.fromEntries(repairs.map((r) => [r.jobId, r]));
    expect(byId[ok.id!]).toMatchObject({
      applied: true,
      action: expect.stringMatching(/completed$/),
    });
    expect(byId[bad.id!]).toMatchObject({
      applied: true,
      action: expect.stringMatching(/failed$/),
    });
    expect(byId[unfinished.id!]).toMatchObject({
      applied: false,
      skipped: expect.stringContaining('report-only: an unfinished job'),
    });
    expect(await redis.zscore(key('completed'), ok.id!)).toBe(okScore);
    expect(await redis.hget(key(ok.id!), 'returnvalue')).toBe('42');
    expect(await redis.hget(key(bad.id!), 'failedReason')).toBe('boom');
    expect(await redis.zscore(key('failed'), bad.id!)).toBe(
      await redis.hget(key(bad.id!), 'finishedOn'),
    );
    const after = await check();
    expect(after.counts['hash-without-state']).toBe(1);
    expect(after.samples['hash-without-state']).toEqual([unfinished.id]);
    expect(await redis.exists(key(unfinished.id!))).toBe(1);
  });

  it('skips a finding whose state moved on between the check and the repair', async () => {
    const { redis, queue, key, check, ref } = setUp('repair-moved');
    const a = await queue.add('a', {});
    const b = await queue.add('b', {});
    await redis.lrem(key('wait'), 1, a.id!);
    await redis.lpush(key('active'), a.id!);
    const hash = await redis.hgetall(key(b.id!));
    await redis.del(key(b.id!));
    const report = await check();
    expect(report.counts).toMatchObject({ 'active-unlocked': 1, 'member-without-hash': 1 });
    // Meanwhile a worker locked a, and b's hash came back.
    await redis.set(`${key(a.id!)}:lock`, 'token', 'PX', 60_000);
    await redis.hset(key(b.id!), hash);

    expect(await repairIntegrityFindings(redis, ref, report)).toEqual([
      expect.objectContaining({ jobId: b.id, applied: false, skipped: 'the job hash exists' }),
      expect.objectContaining({ jobId: a.id, applied: false, skipped: 'the job holds a lock' }),
    ]);
    expect(await redis.smembers(key('stalled'))).toEqual([]);
    expect(await redis.lrange(key('wait'), 0, -1)).toEqual([b.id]);
    expect((await check()).clean).toBe(true);
  });

  it('skips pc, events and a finished job when they were set right meanwhile', async () => {
    const { redis, queue, key, check, ref } = setUp('repair-moved-2');
    await queue.add('a', {}, { priority: 2 });
    const b = await queue.add('b', {}, { priority: 2 });
    const done = await queue.add('done', {});
    await redis.lrem(key('wait'), 0, done.id!);
    await redis.hset(key(done.id!), 'finishedOn', 1000, 'returnvalue', '1');
    await redis.set(key('pc'), 1);
    await redis.hset(key('meta'), 'opts.maxLenEvents', 10);
    const pipeline = redis.pipeline();
    for (let i = 0; i < 1500; i++) pipeline.xadd(key('events'), '*', 'event', 'filler');
    await pipeline.exec();
    const report = await check();
    expect(report.counts).toMatchObject({
      'priority-counter': 1,
      'events-over-cap': 1,
      'hash-without-state': 1,
    });
    await redis.set(key('pc'), 7);
    await redis.xtrim(key('events'), 'MAXLEN', 5);
    await redis.zadd(key('completed'), 1000, done.id!);

    const repairs = await repairIntegrityFindings(redis, ref, report);
    expect(
      repairs.map(({ code, jobId, applied, skipped }) => [code, jobId, applied, skipped]),
    ).toEqual([
      ['hash-without-state', done.id, false, 'the job is in a state again'],
      ['priority-counter', b.id, false, 'pc already covers the job'],
      ['events-over-cap', null, false, 'the stream is within its cap'],
    ]);
    expect(await redis.get(key('pc'))).toBe('7');
    expect(await redis.xlen(key('events'))).toBe(5);
  });

  it('leaves report-only findings untouched', async () => {
    const { name, redis, queue, key, check, repair } = setUp('repair-report-only');
    const a = await queue.add('a', {}, { attempts: 1 });
    const b = await queue.add('b', {}, { attempts: 2 });
    const flows = track(new FlowProducer({ connection: redisOptions() }));
    await flows.add({
      name: 'p',
      queueName: name,
      opts: { jobId: 'p' },
      children: [{ name: 'c', queueName: name, opts: { jobId: 'c', delay: 60_000 } }],
    });
    await redis.zadd(key('completed'), Date.now(), a.id!);
    await redis.hset(key(b.id!), 'atm', 5);
    await redis.srem(key('p:dependencies'), key('c'));
    const dump = async () => {
      const keys = (await redis.keys(`${key('')}*`)).sort();
      return Promise.all(keys.map(async (k) => [k, await redis.dump(k)]));
    };
    const before = await dump();
    const found = await check();
    expect(found.counts).toMatchObject({
      'multiple-states': 1,
      'attempts-exceeded': 1,
      'parent-link': 1,
    });

    const reportOnly = { action: 'none', applied: false, skipped: 'report-only' };
    expect(await repair()).toEqual([
      { code: 'multiple-states', jobId: a.id, ...reportOnly },
      { code: 'attempts-exceeded', jobId: b.id, ...reportOnly },
      { code: 'parent-link', jobId: 'c', ...reportOnly },
    ]);
    expect(await dump()).toEqual(before);
  });

  it('refuses a malformed report with a typed error', async () => {
    const redis = track(rawClient());
    const ref = { prefix: 'bull', name: uniqueQueueName('repair-invalid') };
    await expect(
      repairIntegrityFindings(redis, ref, { samples: { 'member-without-hash': [7] } } as never),
    ).rejects.toMatchObject({ name: 'ValidationError', code: 'VALIDATION' });
  });
});

describe('repairQueueIntegrityToEnd', () => {
  it('repairs more findings than a report samples, in small budgeted steps', async () => {
    const { redis, queue, key, ref, check, process } = setUp('repair-walk');
    const jobs = await queue.addBulk(
      Array.from({ length: 30 }, (_, i) => ({ name: `j${i}`, data: {} })),
    );
    const gone = jobs.filter((_, i) => i % 3 !== 0).map((job) => job.id!);
    await redis.del(...gone.map((id) => key(id)));
    expect((await check()).counts['member-without-hash']).toBe(20);

    const seen: string[] = [];
    const repairs = await repairQueueIntegrityToEnd(redis, ref, {
      budget: 7,
      onRepair: (repair) => seen.push(repair.jobId!),
    });
    expect(repairs.every((repair) => repair.applied)).toBe(true);
    expect(seen.sort()).toEqual([...gone].sort());
    expect((await check()).clean).toBe(true);
    expect((await process(10)).sort()).toEqual(
      jobs
        .filter((_, i) => i % 3 === 0)
        .map((job) => job.name)
        .sort(),
    );
  });

  it('refuses a bad budget or cursor with a typed error', async () => {
    const redis = track(rawClient());
    const ref = { prefix: 'bull', name: uniqueQueueName('repair-walk-invalid') };
    await expect(repairQueueIntegrityToEnd(redis, ref, { budget: 0 })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(repairQueueIntegrityStep(redis, ref, { cursor: 'x' })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
  });
});

describe('createAdmin().integrity', () => {
  it('checks and repairs a step on one server, and refuses a bad cursor or an untagged queue on a Cluster', async () => {
    const { redis, queue, key, name } = setUp('repair-admin');
    const a = await queue.add('a', {});
    await redis.del(key(a.id!));
    const admin = createAdmin(redis, { prefixes: ['bull'] });
    expect((await admin.integrity.check('bull', name)).counts['member-without-hash']).toBe(1);
    const step = await admin.integrity.repairStep('bull', name, { budget: 100 });
    expect(step.repairs).toEqual([expect.objectContaining({ jobId: a.id, applied: true })]);
    expect((await admin.integrity.check('bull', name)).clean).toBe(true);
    await expect(admin.integrity.check('bull', name, { cursor: '1:2' })).rejects.toMatchObject({
      code: 'VALIDATION',
    });

    // Its keys would spread over slots: no one master holds them (test/cluster/ repairs a
    // hash-tagged queue on a real Cluster). Refused before any connection is made.
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    try {
      const onCluster = createAdmin(cluster, { prefixes: ['bull'] });
      await expect(onCluster.integrity.repairStep('bull', name)).rejects.toMatchObject({
        code: 'VALIDATION',
      });
      const report = await checkQueueIntegrityToEnd(redis, { prefix: 'bull', name });
      await expect(
        repairIntegrityFindings(cluster, { prefix: 'bull', name }, report),
      ).rejects.toMatchObject({ code: 'VALIDATION' });
    } finally {
      cluster.disconnect();
    }
  });
});
