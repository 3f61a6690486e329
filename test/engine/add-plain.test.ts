/**
 * Queue.add and addBulk of plain jobs (no parent, children, deduplication or group) take the
 * short path (lua/includes/insertPlainJob.lua): positional arguments, meta read once (events cap,
 * paused, concurrency in one HMGET). They must leave Redis exactly as the job-table path
 * (insertJob, which every other job takes) does, and honour what meta says at each add.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type JobsOptions } from 'oxmq';
import { jobTable, prepareJob, runScript, scriptKeys } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { rawClient, uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';

const track = useCleanup();
const TIMESTAMP = 1_700_000_000_000;

/** Everything an add writes, with the queue's name taken out so two queues compare equal. */
async function snapshot(redis: Redis, queue: Queue): Promise<unknown> {
  const base = queue.keys.base;
  const keys = (await redis.keys(`${base}*`)).sort();
  const state: Record<string, unknown> = {};
  for (const key of keys) {
    const name = key.slice(base.length);
    const type = await redis.type(key);
    if (type === 'hash') state[name] = await redis.hgetall(key);
    else if (type === 'list') state[name] = await redis.lrange(key, 0, -1);
    else if (type === 'zset') state[name] = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'string') state[name] = await redis.get(key);
    else if (type === 'stream') {
      // Entry ids are times; their fields (and order) are what readers see.
      state[name] = (await redis.xrange(key, '-', '+')).map(([, fields]) => fields);
    } else state[name] = type;
  }
  // Field order inside a hash is what HGETALL returns: compare it too.
  for (const [name, value] of Object.entries(state)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      state[name] = Object.entries(value);
    }
  }
  return state;
}

/** Adds through the job-table path: addJobBatch's JSON form, which insertJob serves. */
async function addThroughJobTable(
  redis: Redis,
  queue: Queue,
  name: string,
  data: unknown,
  opts: JobsOptions,
): Promise<void> {
  const table = jobTable(queue.keys.base, prepareJob(name, data, opts).job);
  await runScript(redis, 'addJobBatch', scriptKeys('addJobBatch', queue.keys), [
    JSON.stringify([table]),
    Date.now(),
  ]);
}

const CASES: { name: string; data: unknown; opts: JobsOptions }[] = [
  { name: 'plain', data: { i: 1 }, opts: {} },
  { name: 'lifo', data: { i: 2 }, opts: { lifo: true } },
  { name: 'prio', data: { i: 3 }, opts: { priority: 7 } },
  { name: 'later', data: { i: 4 }, opts: { delay: 5_000 } },
  { name: 'later-prio', data: { i: 5 }, opts: { delay: 5_000, priority: 2 } },
  { name: 'custom', data: { i: 6 }, opts: { jobId: 'mine', attempts: 3 } },
  { name: 'custom-again', data: { i: 7 }, opts: { jobId: 'mine' } },
  {
    name: 'traced',
    data: { i: 8 },
    opts: {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'k=v',
    },
  },
  { name: 'fractional', data: { i: 9 }, opts: { delay: 1.5, timestamp: TIMESTAMP + 0.25 } },
];

describe('Queue.add of a plain job', () => {
  it('writes the same keys, hashes, lists, scores and events as the job-table path', async () => {
    const redis = track(rawClient());
    const single = track(new Queue(uniqueQueueName('plain'), { connection: redis }));
    const bulk = track(new Queue(uniqueQueueName('plain'), { connection: redis }));
    const table = track(new Queue(uniqueQueueName('plain'), { connection: redis }));
    for (const queue of [single, bulk, table]) await queue.waitUntilReady();
    const ids: string[] = [];
    for (const job of CASES) {
      const opts = { timestamp: TIMESTAMP, ...job.opts };
      ids.push((await single.add(job.name, job.data, opts)).id!);
      await addThroughJobTable(redis, table, job.name, job.data, opts);
    }
    // addBulk of the same jobs at once: each job in the plain form of one addJobBatch call.
    const bulkJobs = await bulk.addBulk(
      CASES.map((job) => ({
        name: job.name,
        data: job.data,
        opts: { timestamp: TIMESTAMP, ...job.opts },
      })),
    );
    expect(ids).toEqual(['1', '2', '3', '4', '5', 'mine', 'mine', '8', '9']);
    expect(bulkJobs.map((job) => job.id)).toEqual(ids);
    const expected = await snapshot(redis, table);
    expect(await snapshot(redis, single)).toEqual(expected);
    expect(await snapshot(redis, bulk)).toEqual(expected);
    const hash = await redis.hgetall(`${single.keys.base}8`);
    expect(hash.traceparent).toBe(CASES[7]!.opts.traceparent);
    expect(hash.tracestate).toBe('k=v');
    expect((await redis.hgetall(`${single.keys.base}9`)).delay).toBe('1.5');
  });

  it('sees a pause, a global concurrency and a new events cap at the very next add', async () => {
    const redis = track(rawClient());
    const queue = track(new Queue(uniqueQueueName('plainmeta'), { connection: redis }));
    await queue.waitUntilReady();
    const k = queue.keys;

    await queue.add('first', {});
    expect(await redis.zrange(k.marker, 0, -1)).toEqual(['0']);

    await redis.del(k.marker);
    await queue.pause();
    await queue.add('while-paused', {});
    expect(await redis.exists(k.marker), 'no marker while paused').toBe(0);
    await queue.resume();
    await redis.del(k.marker);
    await queue.add('resumed', {});
    expect(await redis.zrange(k.marker, 0, -1)).toEqual(['0']);

    // Global concurrency 1 with one job active: maxed, so no marker.
    await redis.del(k.marker);
    await queue.setGlobalConcurrency(1);
    await redis.lpush(k.active, 'someone');
    await queue.add('maxed', {});
    expect(await redis.exists(k.marker), 'no marker while maxed').toBe(0);
    await redis.del(k.active);
    await queue.add('room', {});
    expect(await redis.zrange(k.marker, 0, -1)).toEqual(['0']);

    // A small cap written in meta trims the stream at the next adds (approximately: whole nodes).
    await redis.hset(k.meta, 'opts.maxLenEvents', 1);
    for (let i = 0; i < 300; i++) await queue.add('capped', { i });
    expect(await redis.xlen(k.events)).toBeLessThan(300);

    // A meta without a cap gets the default written back, as bullmq expects it there.
    await redis.hdel(k.meta, 'opts.maxLenEvents');
    await queue.add('default-cap', {});
    expect(await redis.hget(k.meta, 'opts.maxLenEvents')).toBe('10000');
  });

  describe('on a Redis of its own (command counts)', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(async () => {
      await server.stop();
    });

    it('runs one script with seven commands: meta read in one HMGET', async () => {
      const connection = { host: '127.0.0.1', port: server.port };
      const redis = track(new Redis(connection));
      const queue = track(new Queue(uniqueQueueName('plaincount'), { connection }));
      await queue.waitUntilReady();
      await queue.add('warm', {});
      await redis.config('RESETSTAT');
      for (let i = 0; i < 10; i++) await queue.add('n', { i });
      const calls = await commandCalls(redis);
      delete calls.info;
      delete calls['config|resetstat'];
      expect(calls).toEqual({
        evalsha: 10,
        incr: 10,
        hmget: 10,
        hset: 10,
        xadd: 20,
        lpush: 10,
        zadd: 10,
      });
    });
  });
});
