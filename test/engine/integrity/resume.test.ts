/**
 * The integrity checker is bounded and resumable: a queue of a few thousand jobs checked with a
 * small budget hands back a cursor many times, each call staying near its budget, and the calls'
 * counts add up to those of one unbounded run.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { checkQueueIntegrity, emptyReport, INTEGRITY_LIMITS, mergeReports } from 'oxmq/admin';
import { useCleanup } from '../../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../../helpers/redis';
import { queueKey } from '../../helpers/redis-state';

const track = useCleanup();

describe('checkQueueIntegrity with a budget', () => {
  it('resumes from its cursor and adds up to one unbounded run', async () => {
    const name = uniqueQueueName('fsck-resume');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const key = (suffix: string) => queueKey(name, suffix);
    const jobs = await queue.addBulk(
      Array.from({ length: 4000 }, (_, i) => ({
        name: 'bulk',
        data: { i },
        opts: i % 3 === 0 ? { priority: 1 + (i % 5) } : {},
      })),
    );
    const ids = jobs.map((job) => job.id!);
    const broken = redis.pipeline();
    for (const id of ids.slice(0, 25)) broken.zadd(key('completed'), 1, id);
    for (const id of ids.slice(100, 110)) broken.del(key(id));
    for (let i = 0; i < 7; i++) broken.hset(key(`orphan-${i}`), 'name', 'x', 'timestamp', 1);
    await broken.exec();

    // Longer than both bounded lookups together: placing a hash pages through the list.
    expect(await redis.llen(key('wait'))).toBeGreaterThan(2 * INTEGRITY_LIMITS.listLookup);
    const whole = await checkQueueIntegrity(redis, { prefix: 'bull', name }, { budget: 1e9 });
    expect(whole.cursor).toBeUndefined();
    expect(whole.counts).toMatchObject({
      'multiple-states': 25,
      'member-without-hash': 10,
      'hash-without-state': 7,
    });
    expect(Object.values(whole.counts).reduce((a, b) => a + b, 0)).toBe(42);
    expect(whole.unverified).toBe(0);
    expect(whole.scanned).toBeGreaterThan(8000);

    const budget = 250;
    let total = emptyReport();
    let cursor: string | undefined;
    let calls = 0;
    do {
      const part = await checkQueueIntegrity(redis, { prefix: 'bull', name }, { budget, cursor });
      // One step may finish past the budget: a window, or one SCAN step with its keys and the
      // page-through of the long wait list.
      const wait = await redis.llen(key('wait'));
      expect(part.scanned).toBeLessThanOrEqual(budget + INTEGRITY_LIMITS.window * 2 + wait);
      total = mergeReports(total, part);
      cursor = part.cursor;
      calls += 1;
      if (cursor !== undefined) expect(cursor).toMatch(/^\d+:\d+:\d+:\d+$/);
    } while (cursor !== undefined && calls < 1000);
    expect(cursor).toBeUndefined();
    expect(calls).toBeGreaterThan(10);
    expect(total.counts).toEqual(whole.counts);
    expect(total.clean).toBe(false);
    expect(total.unverified).toBe(0);
    expect(total.samples['hash-without-state']).toHaveLength(7);
  }, 60_000);

  it('refuses a cursor it did not make and a budget below one', async () => {
    const redis = track(rawClient());
    const queue = { prefix: 'bull', name: uniqueQueueName('fsck-cursor') };
    await expect(checkQueueIntegrity(redis, queue, { cursor: 'nonsense' })).rejects.toThrow(
      /invalid integrity cursor/,
    );
    await expect(checkQueueIntegrity(redis, queue, { budget: 0 })).rejects.toThrow(/budget/);
    const empty = await checkQueueIntegrity(redis, queue);
    expect(empty.clean).toBe(true);
    expect(empty.cursor).toBeUndefined();
  });
});
