/**
 * An add against a Redis at maxmemory (noeviction) is refused with RedisOutOfMemoryError, code
 * REDIS_OOM, ioredis's "OOM ..." reply as its cause, and leaves no job behind. The server is the
 * test's own: a limit of 1 byte makes every write over the limit.
 */
import { Redis } from 'ioredis';
import { Queue, RedisOutOfMemoryError } from 'oxmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

async function refusal(pending: Promise<unknown>): Promise<RedisOutOfMemoryError> {
  const error = await pending.then(
    () => expect.fail('resolved at maxmemory'),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(RedisOutOfMemoryError);
  return error as RedisOutOfMemoryError;
}

describe('Redis at maxmemory', () => {
  it('refuses add and addBulk with REDIS_OOM and writes nothing; adds pass once memory is free', async () => {
    const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
    const redis = track(new Redis(connection));
    const queue = track(new Queue(uniqueQueueName('oom'), { connection }));
    await queue.waitUntilReady();
    await redis.config('SET', 'maxmemory', '1');

    const single = await refusal(queue.add('a', { n: 1 }, { jobId: 'one' }));
    expect(single.code).toBe('REDIS_OOM');
    expect(single.message).toMatch(/maxmemory/);
    expect((single.cause as Error).message).toMatch(/^OOM command not allowed/);
    const bulk = await refusal(
      queue.addBulk([
        { name: 'b', data: {}, opts: { jobId: 'two' } },
        { name: 'b', data: {}, opts: { jobId: 'three' } },
      ]),
    );
    expect(bulk.code).toBe('REDIS_OOM');
    const written = await Promise.all(
      ['one', 'two', 'three'].map((id) => redis.exists(queue.keys.base + id)),
    );
    expect(written).toEqual([0, 0, 0]);
    // The queue's meta hash is written when the queue connects, before the limit; nothing else.
    expect(await redis.keys(`${queue.keys.base}*`)).toEqual([queue.keys.meta]);

    await redis.config('SET', 'maxmemory', '0');
    const job = await queue.add('a', { n: 1 }, { jobId: 'one' });
    expect(job.id).toBe('one');
    expect(await redis.exists(queue.keys.base + 'one')).toBe(1);
  });
});
