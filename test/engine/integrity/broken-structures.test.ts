/**
 * The integrity checker's structural invariants (docs/integrity.md), each broken once by hand with
 * raw Redis commands on an otherwise healthy queue and found with its sample: an id twice in one
 * list, a lock without a TTL, a job in another group's line, a group's active set holding an id
 * that left `active`, and a `marker` key bullmq's workers could not read. The near misses each
 * definition leaves alone are checked too.
 */
import { describe, expect, it } from 'vitest';
import { Worker } from 'oxmq';
import { checkQueueIntegrity, INVARIANTS, type Invariant } from 'oxmq/admin';
import { useCleanup } from '../../helpers/cleanup';
import { redisOptions } from '../../helpers/redis';
import { brokenQueue } from './broken-queue';

const track = useCleanup();

function setUp(label: string) {
  const fixture = brokenQueue(track, label);
  const { name } = fixture;
  /** Fetches one job by hand, as a worker does: it is active with a lock of `lockDuration`. */
  const fetch = async () => {
    const worker = track(new Worker(name, null, { connection: redisOptions() }));
    const job = await worker.getNextJob('token-1');
    expect(job).toBeDefined();
    return job!;
  };
  return { ...fixture, fetch };
}

describe('checkQueueIntegrity finds broken structures', () => {
  it('duplicate-in-list: an id twice in wait and twice in active, reported once each', async () => {
    const { redis, queue, key, findings, fetch } = setUp('fsck-twice');
    const running = await queue.add('run', {});
    await fetch();
    const a = await queue.add('a', {});
    await queue.add('b', {});
    expect((await findings()).clean).toBe(true);
    await redis.lpush(key('wait'), a.id!);
    await redis.rpush(key('active'), running.id!);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'duplicate-in-list': 2 },
      samples: { 'duplicate-in-list': [a.id, running.id] },
    });
  });

  it('duplicate-in-list: entries deep inside a long list, found within one window', async () => {
    const { redis, queue, key, findings } = setUp('fsck-twice-deep');
    await queue.addBulk(Array.from({ length: 2500 }, (_, i) => ({ name: 'n', data: { i } })));
    // Both entries of the repeated id sit more than 1,000 entries from either end.
    const [middle] = await redis.lrange(key('wait'), 1250, 1250);
    await redis.linsert(key('wait'), 'BEFORE', middle!, middle!);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'duplicate-in-list': 1 },
      samples: { 'duplicate-in-list': [middle] },
    });
  });

  it('lock-without-ttl: an active job whose lock was made persistent', async () => {
    const { redis, key, queue, findings, fetch } = setUp('fsck-persist');
    await queue.add('a', {});
    const job = await fetch();
    expect(await redis.pttl(`${key(job.id!)}:lock`)).toBeGreaterThan(0);
    expect((await findings()).clean).toBe(true);
    await redis.persist(`${key(job.id!)}:lock`);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'lock-without-ttl': 1 },
      samples: { 'lock-without-ttl': [job.id] },
    });
  });

  it('group-mismatch: an id in one group line whose hash names another group', async () => {
    const { redis, queue, key, findings } = setUp('fsck-gid');
    const a = await queue.add('a', {}, { group: { id: 'acme' } });
    await queue.add('b', {}, { group: { id: 'acme' } });
    expect((await findings()).clean).toBe(true);
    await redis.hset(key(a.id!), 'gid', 'globex');
    // Its own group's line (globex) does not hold it, so the hash has no state either.
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'group-mismatch': 1, 'hash-without-state': 1 },
      samples: { 'group-mismatch': [a.id], 'hash-without-state': [a.id] },
    });
  });

  it('group-active-stray: an id of a group active set that left active, unless locked', async () => {
    const { redis, queue, key, findings, fetch } = setUp('fsck-group-active');
    await queue.add('a', {}, { group: { id: 'acme' } });
    await queue.add('b', {}, { group: { id: 'acme' } });
    const job = await fetch();
    expect(await redis.smembers(key('group:acme:active'))).toEqual([job.id]);
    expect((await findings()).clean).toBe(true);
    // What a bullmq worker's stalled check does to a grouped job: out of active, lock gone, back
    // in line, and the group's active set left as it was.
    await redis.lrem(key('active'), 1, job.id!);
    await redis.rpush(key('group:acme:wait'), job.id!);
    // Still locked: a worker may yet finish it, so it is not a stray.
    expect((await findings()).clean).toBe(true);
    await redis.del(`${key(job.id!)}:lock`);
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'group-active-stray': 1 },
      samples: { 'group-active-stray': [`acme -> ${job.id}`] },
    });
  });

  it('marker-invalid: a member bullmq never writes, a ready member with a score, another type', async () => {
    const { redis, queue, key, findings } = setUp('fsck-marker');
    await queue.add('a', {});
    await queue.add('later', {}, { delay: 60_000 });
    expect(await redis.zrange(key('marker'), 0, -1)).toEqual(['0', '1']);
    expect((await findings()).clean).toBe(true);
    await redis.zadd(key('marker'), 7, 'junk');
    expect(await findings()).toEqual({
      clean: false,
      counts: { 'marker-invalid': 1 },
      samples: { 'marker-invalid': ['junk'] },
    });
    await redis.zrem(key('marker'), 'junk');
    await redis.zadd(key('marker'), 5, '0');
    expect((await findings()).samples).toEqual({ 'marker-invalid': ['0'] });
    await redis.del(key('marker'));
    expect((await findings()).clean).toBe(true);
    await redis.set(key('marker'), 'x');
    expect((await findings()).samples).toEqual({ 'marker-invalid': ['marker'] });
  });

  it('finds the same in small steps, resuming from the cursor', async () => {
    const { name, redis, queue, key } = setUp('fsck-steps');
    const jobs = await queue.addBulk(
      Array.from({ length: 30 }, (_, i) => ({ name: 'n', data: { i } })),
    );
    await redis.lpush(key('wait'), jobs[3]!.id!);
    await redis.zadd(key('marker'), 9, 'junk');
    const counts: Partial<Record<Invariant, number>> = {};
    let cursor: string | undefined;
    do {
      const step = await checkQueueIntegrity(
        redis,
        { prefix: 'bull', name },
        { cursor, budget: 1 },
      );
      for (const invariant of INVARIANTS) {
        if (step.counts[invariant] > 0) {
          counts[invariant] = (counts[invariant] ?? 0) + step.counts[invariant];
        }
      }
      cursor = step.cursor;
    } while (cursor);
    expect(counts).toEqual({ 'duplicate-in-list': 1, 'marker-invalid': 1 });
  });
});
