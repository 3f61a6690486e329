/**
 * Queue.removeOrphanedJobs: only job keys that no state holds are deleted; the count agrees with
 * bullmq's on the same data; grouped jobs (in OxMQ's group lines) are never taken for orphans.
 */
import { Queue as BullQueue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, ValidationError } from 'oxmq';
import { jobIdOfQueueKey } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });

/** A queue with jobs in every state plus `orphans` hashes (one with logs) no state holds. */
async function populated(label: string, orphans: number) {
  const name = uniqueQueueName(label);
  const queue = track(new Queue(name, conn()));
  const redis = track(rawClient());
  await queue.add('wait', {});
  await queue.add('prio', {}, { priority: 3 });
  await queue.add('delayed', {}, { delay: 60_000 });
  const done = await queue.add('done', {});
  await redis.lrem(queue.toKey('wait'), 0, done.id);
  await redis.zadd(queue.toKey('completed'), Date.now(), done.id);
  const running = await queue.add('running', {});
  await redis.lrem(queue.toKey('wait'), 0, running.id);
  await redis.lpush(queue.toKey('active'), running.id);
  await queue.addJobLog(running.id, 'working');
  await queue.upsertJobScheduler('every-minute', { every: 60_000 });
  await track(new FlowProducer(conn())).add({
    name: 'parent',
    queueName: name,
    children: [{ name: 'child', queueName: name }],
  });
  for (let i = 0; i < orphans; i++) {
    await redis.hset(queue.toKey(`lost-${i}`), {
      name: 'lost',
      data: '{}',
      opts: '{}',
      timestamp: String(Date.now()),
    });
  }
  if (orphans > 0) await redis.rpush(queue.toKey('lost-0:logs'), 'a line');
  return { name, queue, redis };
}

async function jobKeys(redis: ReturnType<typeof rawClient>, name: string): Promise<string[]> {
  const all = await redis.keys(`bull:${name}:*`);
  return all.filter((key) => jobIdOfQueueKey(key.slice(`bull:${name}:`.length)) !== undefined);
}

describe('Queue.removeOrphanedJobs', () => {
  it('removes only orphans, and counts them as bullmq does', async () => {
    const ours = await populated('orph-ours', 3);
    const theirs = await populated('orph-theirs', 3);
    const before = await jobKeys(ours.redis, ours.name);
    expect(await ours.queue.removeOrphanedJobs()).toBe(3);
    const bull = track(new BullQueue(theirs.name, { ...conn(), skipMetasUpdate: true }));
    expect(await bull.removeOrphanedJobs()).toBe(3);
    const after = await jobKeys(ours.redis, ours.name);
    expect(before.filter((key) => !after.includes(key)).sort()).toEqual(
      [0, 1, 2]
        .map((i) => `bull:${ours.name}:lost-${i}`)
        .concat(`bull:${ours.name}:lost-0:logs`)
        .sort(),
    );
    // Nothing left for either library to find.
    expect(await ours.queue.removeOrphanedJobs()).toBe(0);
    expect(
      await track(
        new BullQueue(ours.name, { ...conn(), skipMetasUpdate: true }),
      ).removeOrphanedJobs(),
    ).toBe(0);
  });

  it('honours the limit, in small scan steps', async () => {
    const { queue } = await populated('orph-limit', 5);
    expect(await queue.removeOrphanedJobs(2, 2)).toBe(2);
    expect(await queue.removeOrphanedJobs(2, 0)).toBe(3);
    await expect(queue.removeOrphanedJobs(0)).rejects.toBeInstanceOf(ValidationError);
  });

  it('never takes a grouped job for an orphan', async () => {
    const name = uniqueQueueName('orph-group');
    const queue = track(new Queue(name, conn()));
    await queue.add('g', {}, { group: { id: 'tenant' } });
    await queue.add('gd', {}, { group: { id: 'tenant' }, delay: 60_000 });
    expect(await queue.removeOrphanedJobs()).toBe(0);
    expect((await queue.getGroup('tenant')).waiting).toBe(1);
  });

  it('leaves alone the keys of a queue under a longer prefix', async () => {
    const name = uniqueQueueName('orph-outer');
    const queue = track(new Queue(name, conn()));
    // Prefix `bull:<name>`, queue `inner`: its keys start like keys of `name` under `bull`.
    const inner = track(new Queue('inner', { ...conn(), prefix: `bull:${name}` }));
    await inner.add('j', {});
    await inner.add('d', {}, { deduplication: { id: 'a:b' } });
    await inner.addJobLog('1', 'line');
    const redis = track(rawClient());
    await redis.hset(`bull:${name}:inner:metrics:completed`, { count: '1', prevTS: '1' });
    const before = (await redis.keys(`bull:${name}:inner:*`)).sort();
    expect(await queue.removeOrphanedJobs()).toBe(0);
    expect((await redis.keys(`bull:${name}:inner:*`)).sort()).toEqual(before);
  });

  it('tells job keys from queue keys', () => {
    for (const rest of [
      'wait',
      'meta',
      'de:x',
      'dn:x',
      'repeat',
      'repeat:sched',
      'group:g:wait',
      'groups:known',
      'metrics:completed:data',
      'limiter:log',
    ]) {
      expect(jobIdOfQueueKey(rest)).toBeUndefined();
    }
    expect(jobIdOfQueueKey('42')).toBe('42');
    expect(jobIdOfQueueKey('42:logs')).toBe('42');
    expect(jobIdOfQueueKey('inner:5')).toBeUndefined();
    expect(jobIdOfQueueKey('a:b:c')).toBe('a:b:c');
    expect(jobIdOfQueueKey('repeat:sched:1700000000000')).toBe('repeat:sched:1700000000000');
    expect(jobIdOfQueueKey('repeat:sched:1700000000000:lock')).toBe('repeat:sched:1700000000000');
  });
});
