/**
 * Queue.addBulk in one script call (addJobBatch): every job added exactly as add() adds it, in
 * order, duplicates of a custom id inside the same list resolved as add() resolves them.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue } from '../../engine';
import { useCleanup } from '../helpers/cleanup';
import { countScriptCalls } from '../helpers/script-calls';
import { redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('Queue.addBulk', () => {
  it('adds every job in one script call, in order, with its options', async () => {
    // A shared ioredis instance, so the test can count the script calls the queue sends on it.
    const client = track(new Redis(redisOptions()));
    const queue = track(new Queue(uniqueQueueName('bulk'), { connection: client }));
    await queue.waitUntilReady();
    const scripts = countScriptCalls(client);
    const jobs = await queue.addBulk([
      ...Array.from({ length: 48 }, (_, i) => ({ name: `n${i}`, data: { i } })),
      { name: 'later', data: {}, opts: { delay: 60_000, jobId: 'later' } },
      { name: 'again', data: { second: true }, opts: { jobId: 'later' } },
    ]);
    expect(scripts.count).toBe(1);
    expect(jobs.map((job) => job.id).slice(0, 3)).toEqual(['1', '2', '3']);
    expect(jobs[48]!.id).toBe('later');
    // The same custom id twice: the second is the existing job, as with two add() calls.
    expect(jobs[49]!.id).toBe('later');
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 48, delayed: 1 });
    expect((await queue.getJob('later'))?.data).toEqual({});
    expect((await queue.getJob('5'))?.name).toBe('n4');
  });
});
