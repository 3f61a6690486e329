/**
 * Deduplication and debounce: every mode, the queue helpers, stale-key
 * recovery, when the key is deleted, and the options that are refused.
 *
 * The key `Q de:<id>` names the job that owns the window. Modes, for a new add N while the key
 * names E: simple (no ttl) — N dropped, key lives until E finishes or is removed; throttle
 * (ttl) — key expires by itself; extend — every duplicate restarts the ttl; replace (debounce,
 * with a delay) — N replaces E while E is delayed; reschedule — E moves to N's due time.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue, ValidationError, Worker, type JobsOptions } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { eventsNamed, queueKey, queueKeys, zsetWithScores } from '../helpers/redis-state';

const track = useCleanup();

function setUp(label: string) {
  const name = uniqueQueueName(label);
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const dedupKey = (id: string) => queueKey(name, `de:${id}`);
  return { name, redis, queue, dedupKey };
}

function startWorker(
  name: string,
  processor: (job: { id: string; data: unknown }) => Promise<unknown> = async () => 'ok',
) {
  const processed: { id: string; data: unknown }[] = [];
  const worker = track(
    new Worker(
      name,
      async (job) => {
        processed.push({ id: job.id, data: job.data });
        return processor(job);
      },
      { connection: redisOptions(), drainDelay: 1 },
    ),
  );
  return { worker, processed };
}

async function finishedIn(redis: Redis, name: string, set: 'completed' | 'failed', id: string) {
  return (await redis.zscore(queueKey(name, set), id)) !== null;
}

describe('simple mode (no ttl)', () => {
  it('a second add returns the owner, writes nothing but the counter and a deduplicated event', async () => {
    const { name, redis, queue, dedupKey } = setUp('dsimple');
    const first = await queue.add('a', { v: 1 }, { deduplication: { id: 'd' } });
    const second = await queue.add('a', { v: 2 }, { deduplication: { id: 'd' } });

    expect(second.id).toBe(first.id);
    expect(await redis.get(dedupKey('d'))).toBe(first.id);
    expect(await redis.pttl(dedupKey('d'))).toBe(-1);
    expect(await redis.get(queueKey(name, 'id'))).toBe('2');
    expect(await redis.exists(queueKey(name, '2'))).toBe(0);
    const hash = await redis.hgetall(queueKey(name, first.id));
    expect(hash.deid).toBe('d');
    expect(hash.data).toBe('{"v":1}');
    expect(JSON.parse(hash.opts!)).toMatchObject({ de: { id: 'd' } });
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([first.id]);
    expect(await eventsNamed(redis, name, 'deduplicated')).toEqual([
      { event: 'deduplicated', jobId: first.id, deduplicationId: 'd', deduplicatedJobId: '2' },
    ]);
    expect(await queue.getDeduplicationJobId('d')).toBe(first.id);
    expect((await queue.getJob(first.id))?.deduplicationId).toBe('d');
  });

  it('the key goes when its owner completes; the next add opens a new window', async () => {
    const { name, redis, queue, dedupKey } = setUp('dsdone');
    const first = await queue.add('a', {}, { deduplication: { id: 'd' } });
    const { worker } = startWorker(name);
    await waitFor(() => finishedIn(redis, name, 'completed', first.id));
    expect(await redis.exists(dedupKey('d'))).toBe(0);
    expect(await queue.getDeduplicationJobId('d')).toBeNull();
    // No worker from here: one would complete the next job and delete its key before the check.
    await worker.close();

    const next = await queue.add('a', {}, { deduplication: { id: 'd' } });
    expect(next.id).not.toBe(first.id);
    expect(await redis.get(dedupKey('d'))).toBe(next.id);
  });

  it('the key goes on final failure, not on a retry', async () => {
    const { name, redis, queue, dedupKey } = setUp('dsfail');
    const job = await queue.add(
      'a',
      {},
      { deduplication: { id: 'd' }, attempts: 2, backoff: { type: 'fixed', delay: 400 } },
    );
    startWorker(name, async () => {
      throw new Error('boom');
    });
    await waitFor(async () => (await redis.zscore(queueKey(name, 'delayed'), job.id)) !== null);
    // Retrying: still the same job, so the window stays open.
    expect(await redis.get(dedupKey('d'))).toBe(job.id);
    expect((await queue.add('a', {}, { deduplication: { id: 'd' } })).id).toBe(job.id);
    await waitFor(() => finishedIn(redis, name, 'failed', job.id));
    expect(await redis.exists(dedupKey('d'))).toBe(0);
  });

  it('a key that names another job, or has a ttl, survives the job finishing', async () => {
    const { name, redis, queue, dedupKey } = setUp('dskeep');
    const owned = await queue.add('a', {}, { deduplication: { id: 'other' } });
    await redis.set(dedupKey('other'), 'someone-else');
    const throttled = await queue.add('a', {}, { deduplication: { id: 't', ttl: 20_000 } });
    startWorker(name);
    await waitFor(async () => (await redis.zcard(queueKey(name, 'completed'))) === 2);
    expect(await finishedIn(redis, name, 'completed', owned.id)).toBe(true);
    expect(await redis.get(dedupKey('other'))).toBe('someone-else');
    expect(await redis.get(dedupKey('t'))).toBe(throttled.id);
    expect(await redis.pttl(dedupKey('t'))).toBeGreaterThan(15_000);
    expect((await queue.add('a', {}, { deduplication: { id: 't', ttl: 20_000 } })).id).toBe(
      throttled.id,
    );
  });

  it('within one addBulk the second job with the id is deduplicated against the first', async () => {
    const { name, redis, queue, dedupKey } = setUp('dsbulk');
    const jobs = await queue.addBulk([
      { name: 'a', data: { v: 1 }, opts: { deduplication: { id: 'd' } } },
      { name: 'a', data: { v: 2 }, opts: { deduplication: { id: 'd' } } },
    ]);
    expect(jobs[1]!.id).toBe(jobs[0]!.id);
    expect(await redis.get(dedupKey('d'))).toBe(jobs[0]!.id);
    expect(await redis.llen(queueKey(name, 'wait'))).toBe(1);
  });

  it('an owner deleted on completion (removeOnComplete: true) still closes its window', async () => {
    const { name, redis, queue, dedupKey } = setUp('dsrm');
    const job = await queue.add('a', {}, { deduplication: { id: 'd' }, removeOnComplete: true });
    startWorker(name);
    await waitFor(async () =>
      (await eventsNamed(redis, name, 'completed')).some((e) => e.jobId === job.id),
    );
    expect(await redis.exists(queueKey(name, job.id))).toBe(0);
    expect(await redis.exists(dedupKey('d'))).toBe(0);
  });

  it('removing the owner closes its window', async () => {
    const { redis, queue, dedupKey } = setUp('dsremove');
    const job = await queue.add('a', {}, { deduplication: { id: 'd' } });
    expect(await queue.remove(job.id)).toBe(1);
    expect(await redis.exists(dedupKey('d'))).toBe(0);
    const next = await queue.add('a', {}, { deduplication: { id: 'd' } });
    expect(next.id).not.toBe(job.id);
  });
});

describe('throttle (ttl) and extend', () => {
  it('ttl: duplicates are dropped until the key expires, then a new job is made', async () => {
    const { redis, queue, dedupKey } = setUp('dttl');
    const opts: JobsOptions = { deduplication: { id: 'd', ttl: 400 } };
    const first = await queue.add('a', {}, opts);
    const ttl = await redis.pttl(dedupKey('d'));
    expect(ttl).toBeGreaterThan(200);
    expect(ttl).toBeLessThanOrEqual(400);
    expect((await queue.add('a', {}, opts)).id).toBe(first.id);
    await waitFor(async () => (await redis.exists(dedupKey('d'))) === 0, 5_000);
    const next = await queue.add('a', {}, opts);
    expect(next.id).not.toBe(first.id);
    expect(await redis.get(dedupKey('d'))).toBe(next.id);
  });

  it('without extend a duplicate leaves the ttl running down', async () => {
    const { redis, queue, dedupKey } = setUp('dnoext');
    const opts: JobsOptions = { deduplication: { id: 'd', ttl: 1_000 } };
    await queue.add('a', {}, opts);
    await sleep(500);
    await queue.add('a', {}, opts);
    expect(await redis.pttl(dedupKey('d'))).toBeLessThanOrEqual(520);
  });

  it('extend: every duplicate restarts the ttl, keeping the first owner', async () => {
    const { name, redis, queue, dedupKey } = setUp('dext');
    const opts: JobsOptions = { deduplication: { id: 'd', ttl: 1_000, extend: true } };
    const first = await queue.add('a', { v: 1 }, opts);
    await sleep(600);
    expect((await queue.add('a', { v: 2 }, opts)).id).toBe(first.id);
    expect(await redis.pttl(dedupKey('d'))).toBeGreaterThan(800);
    await sleep(600);
    // 1.2 s after the first add: past its original ttl, yet still inside the extended one.
    expect(await redis.get(dedupKey('d'))).toBe(first.id);
    expect((await queue.add('a', { v: 3 }, opts)).id).toBe(first.id);
    expect(await redis.hget(queueKey(name, first.id), 'data')).toBe('{"v":1}');
  });
});

describe('replace (debounce) and reschedule', () => {
  it('replace + extend + delay: the newest add replaces the delayed owner; only the last data runs', async () => {
    const { name, redis, queue, dedupKey } = setUp('drepl');
    const opts: JobsOptions = {
      delay: 600,
      deduplication: { id: 'deb', ttl: 3_000, replace: true, extend: true },
    };
    const j1 = await queue.add('a', { v: 1 }, opts);
    await sleep(300);
    const j2 = await queue.add('a', { v: 2 }, opts);
    const j3 = await queue.add('a', { v: 3 }, opts);

    expect(new Set([j1.id, j2.id, j3.id]).size).toBe(3);
    expect(await redis.get(dedupKey('deb'))).toBe(j3.id);
    expect(await redis.pttl(dedupKey('deb'))).toBeGreaterThan(2_700);
    expect(await redis.exists(queueKey(name, j1.id), queueKey(name, j2.id))).toBe(0);
    expect((await zsetWithScores(redis, queueKey(name, 'delayed'))).map(([id]) => id)).toEqual([
      j3.id,
    ]);
    expect(await eventsNamed(redis, name, 'removed')).toEqual([
      { event: 'removed', jobId: j1.id, prev: 'delayed' },
      { event: 'removed', jobId: j2.id, prev: 'delayed' },
    ]);
    // In the replace path jobId is the new job, deduplicatedJobId the one it replaced.
    expect(await eventsNamed(redis, name, 'deduplicated')).toEqual([
      { event: 'deduplicated', jobId: j2.id, deduplicationId: 'deb', deduplicatedJobId: j1.id },
      { event: 'deduplicated', jobId: j3.id, deduplicationId: 'deb', deduplicatedJobId: j2.id },
    ]);

    const { processed } = startWorker(name);
    await waitFor(() => finishedIn(redis, name, 'completed', j3.id), 5_000);
    await sleep(200);
    expect(processed).toEqual([{ id: j3.id, data: { v: 3 } }]);

    // The owner has left delayed: a further add is dropped, silently, in favour of the owner.
    const late = await queue.add('a', { v: 4 }, opts);
    expect(late.id).toBe(j3.id);
    expect(await eventsNamed(redis, name, 'deduplicated')).toHaveLength(2);
    expect(await redis.zcard(queueKey(name, 'delayed'))).toBe(0);
  });

  it('replace without extend keeps the running ttl', async () => {
    const { redis, queue, dedupKey } = setUp('dreplkeep');
    const opts: JobsOptions = {
      delay: 5_000,
      deduplication: { id: 'd', ttl: 2_000, replace: true },
    };
    await queue.add('a', { v: 1 }, opts);
    await sleep(500);
    const second = await queue.add('a', { v: 2 }, opts);
    expect(await redis.get(dedupKey('d'))).toBe(second.id);
    expect(await redis.pttl(dedupKey('d'))).toBeLessThanOrEqual(1_520);
  });

  it('reschedule: a duplicate moves the delayed owner to its own due time; owner keeps id and data', async () => {
    const { name, redis, queue, dedupKey } = setUp('dresched');
    const first = await queue.add(
      'a',
      { v: 1 },
      { delay: 60_000, deduplication: { id: 'r', reschedule: true } },
    );
    const before = Date.now();
    const second = await queue.add(
      'a',
      { v: 2 },
      { delay: 300, deduplication: { id: 'r', reschedule: true } },
    );
    expect(second.id).toBe(first.id);
    expect(await redis.get(dedupKey('r'))).toBe(first.id);
    const hash = await redis.hgetall(queueKey(name, first.id));
    expect(hash.delay).toBe('300');
    expect(hash.data).toBe('{"v":1}');
    const [[id, score]] = (await zsetWithScores(redis, queueKey(name, 'delayed'))) as [
      [string, string],
    ];
    expect(id).toBe(first.id);
    const due = Math.floor(Number(score) / 4096);
    expect(due).toBe(second.timestamp + 300);
    expect(due).toBeGreaterThanOrEqual(before + 300);
    expect(await eventsNamed(redis, name, 'deduplicated')).toEqual([
      { event: 'deduplicated', jobId: first.id, deduplicationId: 'r', deduplicatedJobId: '2' },
    ]);
    expect((await eventsNamed(redis, name, 'delayed')).map((e) => e.delay)).toEqual([
      String(first.timestamp + 60_000),
      String(due),
    ]);

    const { processed } = startWorker(name);
    await waitFor(() => finishedIn(redis, name, 'completed', first.id), 5_000);
    expect(processed).toEqual([{ id: first.id, data: { v: 1 } }]);
  });

  it('reschedule of an owner that is no longer delayed is a plain deduplication', async () => {
    const { name, redis, queue } = setUp('dreschwait');
    const first = await queue.add('a', {}, { deduplication: { id: 'r', reschedule: true } });
    const second = await queue.add(
      'a',
      {},
      { delay: 5_000, deduplication: { id: 'r', reschedule: true } },
    );
    expect(second.id).toBe(first.id);
    expect(await redis.zcard(queueKey(name, 'delayed'))).toBe(0);
    expect(await redis.lrange(queueKey(name, 'wait'), 0, -1)).toEqual([first.id]);
    expect(await redis.hget(queueKey(name, first.id), 'delay')).toBe('0');
  });
});

describe('queue helpers and stale keys', () => {
  it('getDeduplicationJobId and removeDeduplicationKey', async () => {
    const { name, redis, queue, dedupKey } = setUp('dhelp');
    expect(await queue.getDeduplicationJobId('d')).toBeNull();
    const first = await queue.add('a', {}, { deduplication: { id: 'd' } });
    expect(await queue.getDeduplicationJobId('d')).toBe(first.id);
    expect(await queue.removeDeduplicationKey('d')).toBe(1);
    expect(await queue.removeDeduplicationKey('d')).toBe(0);
    expect(await redis.exists(dedupKey('d'))).toBe(0);
    // The window is closed although its old owner still waits: the next add is a new job.
    const next = await queue.add('a', {}, { deduplication: { id: 'd' } });
    expect(next.id).not.toBe(first.id);
    expect(await queue.getDeduplicationJobId('d')).toBe(next.id);
    expect(await redis.exists(queueKey(name, first.id))).toBe(1);
  });

  it('a ttl-less key whose owner hash was deleted by hand is stale: the next add starts a new window', async () => {
    const { name, redis, queue, dedupKey } = setUp('dstale');
    const first = await queue.add('a', {}, { deduplication: { id: 'd' } });
    await redis.del(queueKey(name, first.id));
    await redis.lrem(queueKey(name, 'wait'), 0, first.id);
    const next = await queue.add('a', { v: 2 }, { deduplication: { id: 'd' } });
    expect(next.id).not.toBe(first.id);
    expect(await redis.get(dedupKey('d'))).toBe(next.id);
    expect(await redis.hget(queueKey(name, next.id), 'data')).toBe('{"v":2}');
    expect(await eventsNamed(redis, name, 'deduplicated')).toEqual([]);
  });

  it('a key with a ttl is not stale while it lives, even without its owner (as bullmq)', async () => {
    const { name, redis, queue, dedupKey } = setUp('dstalettl');
    const first = await queue.add('a', {}, { deduplication: { id: 'd', ttl: 20_000 } });
    await redis.del(queueKey(name, first.id));
    const again = await queue.add('a', {}, { deduplication: { id: 'd', ttl: 20_000 } });
    expect(again.id).toBe(first.id);
    expect(await redis.get(dedupKey('d'))).toBe(first.id);
  });
});

describe('refused options write nothing', () => {
  async function state(redis: Redis, name: string) {
    return { keys: await queueKeys(redis, name), id: await redis.get(queueKey(name, 'id')) };
  }

  it('deduplication with a parent', async () => {
    const { name, redis, queue } = setUp('dparent');
    const parent = await queue.add('parent', {});
    const before = await state(redis, name);
    await expect(
      queue.add(
        'child',
        {},
        { deduplication: { id: 'd' }, parent: { id: parent.id, queue: `bull:${name}` } },
      ),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await state(redis, name)).toEqual(before);
  });

  const bad: [string, unknown][] = [
    ['no id', {}],
    ['an empty id', { id: '' }],
    ['ttl 0', { id: 'd', ttl: 0 }],
    ['a negative ttl', { id: 'd', ttl: -5 }],
    ['extend without ttl', { id: 'd', extend: true }],
    ['replace with reschedule', { id: 'd', ttl: 1_000, replace: true, reschedule: true }],
  ];
  for (const [label, deduplication] of bad) {
    it(`deduplication with ${label}`, async () => {
      const { name, redis, queue } = setUp('dbad');
      await queue.waitUntilReady();
      const before = await state(redis, name);
      const opts = { deduplication } as JobsOptions;
      await expect(queue.add('a', {}, opts)).rejects.toBeInstanceOf(ValidationError);
      // addBulk validates every job before it writes any.
      await expect(
        queue.addBulk([
          { name: 'ok', data: {} },
          { name: 'bad', data: {}, opts },
        ]),
      ).rejects.toBeInstanceOf(ValidationError);
      expect(await state(redis, name)).toEqual(before);
      expect(before.keys).toEqual([queueKey(name, 'meta')]);
    });
  }
});
