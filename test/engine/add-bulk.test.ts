/**
 * Queue.addBulk in one script call (addJobBatch): every job added exactly as add() adds it, in
 * order, duplicates of a custom id inside the same list resolved as add() resolves them.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { countScriptCalls } from '../helpers/script-calls';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';

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

  describe('on a Redis of its own (command counts)', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(async () => {
      await server.stop();
    });

    // Adding jobs changes neither the queue's meta nor its active list: the events cap (HGET)
    // and the paused-or-maxed state (HMGET) are read once per call, not once per job.
    it('reads the queue meta once per call, whatever the number of jobs', async () => {
      const connection = { host: '127.0.0.1', port: server.port };
      const redis = track(new Redis(connection));
      const queue = track(new Queue(uniqueQueueName('bulkmeta'), { connection }));
      await queue.waitUntilReady();
      await redis.config('RESETSTAT');
      await queue.addBulk(Array.from({ length: 50 }, (_, i) => ({ name: 'n', data: { i } })));
      const calls = await commandCalls(redis);
      expect(calls.hset).toBe(50);
      // The events cap, paused and concurrency come in one HMGET (lua/includes/insertPlainJob.lua).
      expect(calls.hget ?? 0).toBe(0);
      expect(calls.hmget).toBe(1);
      expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 50 });
    });
  });
});
