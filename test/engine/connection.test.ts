import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Queue, ValidationError, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import {
  rawClient,
  redisOptions,
  redisUrl,
  sleep,
  uniqueQueueName,
  waitFor,
} from '../helpers/redis';
import { startRedis } from '../setup/redis-server';

const track = useCleanup();

afterEach(() => {
  vi.restoreAllMocks();
});

async function processOne(queue: Queue, worker: Worker): Promise<[Job, unknown]> {
  const done = new Promise<[Job, unknown]>((resolve) =>
    worker.on('completed', (job: Job, result: unknown) => resolve([job, result])),
  );
  await queue.add('one', { hello: 'world' });
  return done;
}

describe('connection option', () => {
  it('accepts a redis:// URL', async () => {
    const name = uniqueQueueName('url');
    const queue = track(new Queue(name, { connection: redisUrl() }));
    const worker = track(
      new Worker(name, async (job: Job<{ hello: string }>) => job.data.hello.toUpperCase(), {
        connection: redisUrl(),
      }),
    );
    const [job, result] = await processOne(queue, worker);
    expect(result).toBe('WORLD');
    const redis = track(rawClient());
    expect(await redis.hget(`bull:${name}:${job.id}`, 'returnvalue')).toBe('"WORLD"');
  });

  it('honours a url field in the options, with the other fields on top (as bullmq)', async () => {
    const name = uniqueQueueName('urlopt');
    const queue = track(new Queue(name, { connection: { url: redisUrl(), db: 3 } }));
    const job = await queue.add('one', {});
    const db3 = track(new Redis({ ...redisOptions(), db: 3 }));
    expect(await db3.hget(`bull:${name}:${job.id}`, 'name')).toBe('one');
    expect(() => new Queue(name, { connection: { url: 42 as unknown as string } })).toThrow(
      ValidationError,
    );
  });

  it('accepts an ioredis options object', async () => {
    const name = uniqueQueueName('opts');
    const queue = track(new Queue(name, { connection: { ...redisOptions(), db: 0 } }));
    const worker = track(new Worker(name, async () => 'ok', { connection: redisOptions() }));
    const [, result] = await processOne(queue, worker);
    expect(result).toBe('ok');
  });

  it('shares an ioredis instance and never closes it', async () => {
    const name = uniqueQueueName('shared');
    const shared = track(new Redis(redisOptions()));
    const queue = new Queue(name, { connection: shared });
    const worker = new Worker(name, async () => 'shared ok', { connection: shared });
    const [, result] = await processOne(queue, worker);
    expect(result).toBe('shared ok');
    // The worker blocks on a connection of its own (named), never on the shared one.
    const blockingName = `name=bull:${Buffer.from(name).toString('base64')} `;
    expect(await shared.client('GETNAME')).toBeNull();
    expect((await shared.client('LIST')) as string).toContain(blockingName);
    await worker.close();
    await queue.close();
    expect(shared.status).toBe('ready');
    expect(await shared.ping()).toBe('PONG');
    // ...and closes that one (the server notices the closed socket a moment later).
    await waitFor(async () =>
      ((await shared.client('LIST')) as string).includes(blockingName) ? null : true,
    );
    await expect(queue.add('after close', {})).rejects.toThrow();
  });

  it('rejects an ioredis keyPrefix, as options or on an instance', async () => {
    const name = uniqueQueueName('keyprefix');
    const attempts: (() => unknown)[] = [
      () => new Queue(name, { connection: { ...redisOptions(), keyPrefix: 'pfx:' } }),
      () =>
        new Worker(name, async () => 1, { connection: { ...redisOptions(), keyPrefix: 'pfx:' } }),
    ];
    const withPrefix = track(
      new Redis({ ...redisOptions(), keyPrefix: 'pfx:', lazyConnect: true }),
    );
    attempts.push(() => new Queue(name, { connection: withPrefix }));
    for (const attempt of attempts) {
      let caught: unknown;
      try {
        attempt();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ValidationError);
      expect((caught as Error).message).toMatch(/prefix option/);
    }
    const redis = track(rawClient());
    expect(await redis.keys(`*${name}*`)).toEqual([]);
  });

  it('refuses a missing connection', () => {
    let caught: unknown;
    try {
      new Queue(uniqueQueueName('noconn'), {} as unknown as { connection: string });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
  });
});

describe('maxmemory-policy', () => {
  it('warns when Redis may evict keys', async () => {
    const server = await startRedis(['--maxmemory-policy', 'allkeys-lru']);
    try {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const queue = track(
        new Queue(uniqueQueueName('lru'), { connection: { host: '127.0.0.1', port: server.port } }),
      );
      await queue.waitUntilReady();
      await waitFor(() => warn.mock.calls.length > 0, 5_000);
      const message = warn.mock.calls.map((call) => String(call[0])).join('\n');
      expect(message).toMatch(/maxmemory-policy/);
      expect(message).toMatch(/allkeys-lru/);
      expect(message).toMatch(/noeviction/);
      await queue.close();
    } finally {
      await server.stop();
    }
  });

  it('stays quiet with noeviction', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const queue = track(new Queue(uniqueQueueName('noevict'), { connection: redisOptions() }));
    await queue.waitUntilReady();
    await queue.add('x', {});
    await sleep(200);
    expect(warn.mock.calls.filter((call) => /maxmemory/.test(String(call[0])))).toEqual([]);
  });
});

describe('a Redis restart', () => {
  it('is survived by a producer and a worker', async () => {
    const server = await startRedis();
    try {
      const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
      const name = uniqueQueueName('restart');
      const queue = track(new Queue(name, { connection }));
      queue.on('error', () => undefined);
      const completed: string[] = [];
      const worker = track(
        new Worker(name, async (job: Job<{ n: number }>) => job.data.n * 10, {
          connection,
          drainDelay: 1,
        }),
      );
      worker.on('error', () => undefined);
      // By name: the restarted server has no id counter, so ids start over at 1.
      worker.on('completed', (job: Job) => completed.push(job.name));

      const before = await queue.add('before', { n: 1 });
      await waitFor(() => completed.includes('before'));
      expect(before.id).toBe('1');

      await server.kill();
      await sleep(500);
      await server.restart();

      // The data is gone (no persistence); the scripts must be loaded again too.
      const after = await queue.add('after', { n: 2 });
      await waitFor(() => completed.includes('after'), 20_000);
      const probe = track(new Redis(connection));
      expect(await probe.hget(`bull:${name}:${after.id}`, 'returnvalue')).toBe('20');
      expect(await probe.zscore(`bull:${name}:completed`, after.id)).not.toBeNull();
    } finally {
      await server.stop();
    }
  });
});
