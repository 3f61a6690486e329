/**
 * The `durable` add option: after the add, WAIT for that many replicas (docs/scaling.md). On a
 * master with a replica the add is confirmed; without one the wait times out and says so; the
 * option is checked at the boundary and never stored with the job.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, ValidationError } from 'oxmq';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('durable adds on a master with a replica', () => {
  let master: RedisServer | undefined;
  let replica: RedisServer | undefined;
  beforeAll(async () => {
    // No delay before the replica's first sync (Redis waits 5 s by default for more replicas).
    master = await startRedis(['--repl-diskless-sync-delay', '0']);
    replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port)]);
    const probe = new Redis({ port: master.port });
    await waitFor(async () => /slave0:.*state=online/.test(await probe.info('replication')));
    await probe.quit();
  });
  afterAll(async () => {
    await replica?.stop();
    await master?.stop();
  });

  it('confirms an add and a bulk add once the replica holds them', async () => {
    const connection = { host: '127.0.0.1', port: master!.port };
    const queue = track(new Queue(uniqueQueueName('durable'), { connection }));
    const job = await queue.add('one', {}, { durable: { replicas: 1, timeoutMs: 5_000 } });
    expect(job.durability).toEqual({ replicas: 1, confirmed: 1 });
    const onReplica = track(new Redis({ port: replica!.port }));
    expect(await onReplica.hget(queue.keys.job(job.id!), 'name')).toBe('one');

    const bulk = await queue.addBulk([
      { name: 'a', data: {}, opts: { durable: { replicas: 1, timeoutMs: 5_000 } } },
      { name: 'b', data: {} },
    ]);
    expect(bulk.map((j) => j.durability)).toEqual([{ replicas: 1, confirmed: 1 }, undefined]);
    expect(await onReplica.hget(queue.keys.job(bulk[1]!.id!), 'name')).toBe('b');
  });
});

describe('durable adds without a replica', () => {
  it('waits out the timeout and reports no confirmation; the job is still added', async () => {
    const queue = track(
      new Queue(uniqueQueueName('durable-alone'), { connection: redisOptions() }),
    );
    const started = Date.now();
    const job = await queue.add('alone', { n: 1 }, { durable: { replicas: 1, timeoutMs: 150 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(job.durability).toEqual({ replicas: 1, confirmed: 0 });
    expect(await queue.getJobState(job.id!)).toBe('waiting');
    // The option belongs to the add, not to the job: it is not stored.
    const redis = track(rawClient());
    const stored = JSON.parse((await redis.hget(queue.keys.job(job.id!), 'opts'))!) as object;
    expect(stored).not.toHaveProperty('durable');
    expect((await queue.getJob(job.id!))!.opts).not.toHaveProperty('durable');
  });

  it('refuses bad durable options, writing nothing', async () => {
    const queue = track(new Queue(uniqueQueueName('durable-bad'), { connection: redisOptions() }));
    for (const durable of [
      { replicas: 0, timeoutMs: 100 },
      { replicas: 1, timeoutMs: 0 },
      { replicas: 1.5, timeoutMs: 100 },
      { replicas: 1 },
      { replicas: 1, timeoutMs: 100, extra: true },
      'yes',
    ]) {
      await expect(queue.add('x', {}, { durable: durable as never })).rejects.toThrow(
        ValidationError,
      );
    }
    expect(await queue.count()).toBe(0);
  });
});
