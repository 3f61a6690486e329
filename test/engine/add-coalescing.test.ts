/**
 * Adds that overlap on one Queue share script calls (engine/backend/redis/add-coalescer.ts):
 * every add still gets its own job, in call order, and its own outcome; a refused add fails
 * alone; a Queue closed right after adds it never awaited still writes every one of them.
 */
import { describe, expect, it } from 'vitest';
import { ParentJobNotFoundError, Queue } from 'oxmq';
import { ADD_CALLS_IN_FLIGHT } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { countScriptCalls } from '../helpers/script-calls';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('overlapping adds', () => {
  it('share script calls, each add getting its own job, in call order', async () => {
    const name = uniqueQueueName('coalesce-add');
    const client = track(rawClient());
    const queue = track(new Queue(name, { connection: client }));
    await queue.waitUntilReady();
    const scripts = countScriptCalls(client);

    const jobs = await Promise.all(
      Array.from({ length: 200 }, (_, i) => queue.add('n', { i }, { priority: 0 })),
    );

    // The first few go alone; the rest wait for them and go together.
    expect(scripts.count).toBeLessThan(20);
    expect(scripts.count).toBeGreaterThan(ADD_CALLS_IN_FLIGHT);
    expect(jobs.map((job) => job.data)).toEqual(Array.from({ length: 200 }, (_, i) => ({ i })));
    expect(new Set(jobs.map((job) => job.id)).size).toBe(200);
    // The wait list's tail is the first added: reversed, it is the call order.
    const wait = await client.lrange(`bull:${name}:wait`, 0, -1);
    expect(wait.reverse()).toEqual(jobs.map((job) => job.id));
    const stored = await queue.getJob(jobs[150]!.id);
    expect(stored?.data).toEqual({ i: 150 });
    const added = await client.xrange(`bull:${name}:events`, '-', '+');
    expect(added.filter(([, fields]) => fields[1] === 'added')).toHaveLength(200);
  });

  it('fail only the add Redis refuses', async () => {
    const name = uniqueQueueName('coalesce-refuse');
    const client = track(rawClient());
    const queue = track(new Queue(name, { connection: client }));
    await queue.waitUntilReady();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        queue.add(
          'n',
          { i },
          // Job 25's parent does not exist: Redis refuses that add, in the middle of a batch.
          i === 25 ? { parent: { id: 'missing', queue: `bull:${name}` } } : {},
        ),
      ),
    );
    const refused = outcomes.flatMap((outcome, i) => (outcome.status === 'rejected' ? [i] : []));
    expect(refused).toEqual([25]);
    expect((outcomes[25] as PromiseRejectedResult).reason).toBeInstanceOf(ParentJobNotFoundError);
    expect(await client.llen(`bull:${name}:wait`)).toBe(39);
  });

  it('are all written when the Queue is closed right after them', async () => {
    const name = uniqueQueueName('coalesce-close');
    const queue = new Queue(name, { connection: redisOptions() });
    const pending = Array.from({ length: 300 }, (_, i) => queue.add('n', { i }));
    await queue.close();
    const settled = await Promise.allSettled(pending);
    expect(
      settled
        .filter((outcome) => outcome.status === 'rejected')
        .map((o) => String((o as PromiseRejectedResult).reason)),
    ).toEqual([]);
    const client = track(rawClient());
    expect(await client.llen(`bull:${name}:wait`)).toBe(300);
  });
});
