/**
 * Each invariant of the integrity checker broken once by hand with raw Redis commands on an
 * otherwise healthy queue, and found with its sample id; and the near misses each definition
 * leaves alone (docs/integrity.md).
 */
import { describe, expect, it } from 'vitest';
import { FlowProducer } from 'oxmq';
import { useCleanup } from '../../helpers/cleanup';
import { redisOptions } from '../../helpers/redis';
import { brokenQueue } from './broken-queue';

const track = useCleanup();

const setUp = (label: string) => brokenQueue(track, label);

describe('checkQueueIntegrity finds each broken invariant', () => {
  it('multiple-states: an id in wait that is also completed', async () => {
    const { redis, queue, key, findings } = setUp('fsck-multi');
    const a = await queue.add('a', {});
    await queue.add('b', {});
    expect((await findings()).clean).toBe(true);
    await redis.zadd(key('completed'), Date.now(), a.id!);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'multiple-states': 1 },
      samples: { 'multiple-states': [a.id] },
    });
  });

  it('multiple-states: a grouped id in its group line and in active', async () => {
    const { redis, queue, key, findings } = setUp('fsck-multi-group');
    const a = await queue.add('a', {}, { group: { id: 'acme' } });
    await redis.lpush(key('active'), a.id!);
    await redis.set(`${key(a.id!)}:lock`, 'someone', 'PX', 60_000);
    expect(await findings()).toMatchObject({
      counts: { 'multiple-states': 1 },
      samples: { 'multiple-states': [a.id] },
    });
  });

  it('member-without-hash: an id in wait whose hash was deleted', async () => {
    const { redis, queue, key, findings } = setUp('fsck-nohash');
    const a = await queue.add('a', {});
    await queue.add('b', {});
    await redis.del(key(a.id!));
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'member-without-hash': 1 },
      samples: { 'member-without-hash': [a.id] },
    });
  });

  it('hash-without-state: a job hash no state holds, and never a queue key or sub-key', async () => {
    const { redis, queue, key, findings } = setUp('fsck-orphan');
    const a = await queue.add('a', {});
    await redis.hset(key('orphan'), 'name', 'x', 'data', '{}', 'opts', '{}', 'timestamp', 1);
    // Keys that are not jobs: a sub-key of a live job, a scheduler-like hash without timestamp.
    await redis.rpush(`${key(a.id!)}:logs`, 'line');
    await redis.hset(key('oxmq:worker:w1'), 'id', 'w1');
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'hash-without-state': 1 },
      samples: { 'hash-without-state': ['orphan'] },
    });
  });

  it('active-unlocked: an active id with no lock, no stalled mark and no stalled checker', async () => {
    const { redis, queue, key, findings } = setUp('fsck-unlocked');
    const a = await queue.add('a', {});
    await redis.lrem(key('wait'), 1, a.id!);
    await redis.lpush(key('active'), a.id!);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'active-unlocked': 1 },
      samples: { 'active-unlocked': [a.id] },
    });
    // A stalled checker that ran within its interval marks it next time: it will be recovered.
    await redis.set(key('stalled-check'), Date.now(), 'PX', 60_000);
    expect((await findings()).clean).toBe(true);
    await redis.del(key('stalled-check'));
    // Marked by the last check: the next one recovers it.
    await redis.sadd(key('stalled'), a.id!);
    expect((await findings()).clean).toBe(true);
    await redis.del(key('stalled'));
    await redis.set(`${key(a.id!)}:lock`, 'token', 'PX', 60_000);
    expect((await findings()).clean).toBe(true);
  });

  it('attempts-exceeded: a waiting job that made more attempts than allowed, not an active one', async () => {
    const { redis, queue, key, findings } = setUp('fsck-attempts');
    const a = await queue.add('a', {}, { attempts: 2 });
    const b = await queue.add('b', {}, { attempts: 2 });
    await redis.hset(key(a.id!), 'atm', 2);
    expect((await findings()).clean).toBe(true);
    await redis.hset(key(a.id!), 'atm', 3);
    // b is running: its count moves with the attempt.
    await redis.lrem(key('wait'), 1, b.id!);
    await redis.lpush(key('active'), b.id!);
    await redis.set(`${key(b.id!)}:lock`, 'token', 'PX', 60_000);
    await redis.hset(key(b.id!), 'atm', 3);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'attempts-exceeded': 1 },
      samples: { 'attempts-exceeded': [a.id] },
    });
  });

  it('parent-link: a child its parent does not list, and a listed child whose hash is gone', async () => {
    const { name, redis, key, findings } = setUp('fsck-parent');
    const flows = track(new FlowProducer({ connection: redisOptions() }));
    const children = ['c1', 'c2', 'c3'].map((jobId) => ({
      name: jobId,
      queueName: name,
      opts: { jobId, delay: 60_000 },
    }));
    await flows.add({ name: 'p', queueName: name, opts: { jobId: 'p' }, children });
    expect((await findings()).clean).toBe(true);
    // c1 drops out of the parent's pending set with no record anywhere else.
    await redis.srem(key('p:dependencies'), key('c1'));
    // c2 vanishes entirely while the parent still waits for it.
    await redis.zrem(key('delayed'), 'c2');
    await redis.del(key('c2'));
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'parent-link': 2 },
      samples: { 'parent-link': expect.arrayContaining(['c1', `p -> ${key('c2')}`]) },
    });
  });

  it('priority-counter: prioritized scores above the counter', async () => {
    const { redis, queue, key, findings } = setUp('fsck-pc');
    await queue.add('a', {}, { priority: 2 });
    const b = await queue.add('b', {}, { priority: 2 });
    expect(Number(await redis.get(key('pc')))).toBe(2);
    expect((await findings()).clean).toBe(true);
    await redis.set(key('pc'), 1);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'priority-counter': 1 },
      samples: { 'priority-counter': [b.id] },
    });
    await redis.del(key('pc'));
    expect((await findings()).counts['priority-counter']).toBe(2);
  });

  it('events-over-cap: a stream far beyond opts.maxLenEvents', async () => {
    const { redis, queue, key, findings } = setUp('fsck-events');
    await queue.add('a', {});
    await redis.hset(key('meta'), 'opts.maxLenEvents', 10);
    const fill = (n: number) => {
      const pipeline = redis.pipeline();
      for (let i = 0; i < n; i++) pipeline.xadd(key('events'), '*', 'event', 'filler');
      return pipeline.exec();
    };
    await fill(900);
    // Within the slack of approximate trimming.
    expect((await findings()).clean).toBe(true);
    await fill(200);
    const found = await findings();
    expect(found.counts).toEqual({ 'events-over-cap': 1 });
    expect(found.samples['events-over-cap']![0]).toMatch(/events: 110\d entries, cap 10$/);
  });
});
