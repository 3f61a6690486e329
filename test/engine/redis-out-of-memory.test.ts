/**
 * An add against a Redis at maxmemory (noeviction) is refused with RedisOutOfMemoryError, code
 * REDIS_OOM, ioredis's "OOM ..." reply as its cause, and leaves no job behind. The server is the
 * test's own: a limit of 1 byte makes every write over the limit.
 */
import { Redis } from 'ioredis';
import { FlowProducer, Queue, RedisOutOfMemoryError, Worker } from 'oxmq';
import { checkQueueIntegrity, checkQueueIntegrityToEnd, createAdmin, type Admin } from 'oxmq/admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { uniqueQueueName, waitFor } from '../helpers/redis';
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
  it('closes a worker without a raw EXECABORT, and deletes its heartbeat record', async () => {
    const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
    const redis = track(new Redis(connection));
    const name = uniqueQueueName('oom-close');
    const worker = new Worker(name, async () => 'ok', { connection });
    const errors: unknown[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.waitUntilReady();
    const records = `bull:${name}:oxmq:worker*`;
    await waitFor(async () => (await redis.keys(records)).length === 2);
    await redis.config('SET', 'maxmemory', '1');
    try {
      await worker.close();
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    // Its fetches may have been refused meanwhile, as RedisOutOfMemoryError; nothing else.
    expect(errors.filter((error) => !(error instanceof RedisOutOfMemoryError))).toEqual([]);
    expect(await redis.keys(records)).toEqual([]);
  });

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

/**
 * Every read an operator needs while Redis is full: the queue's own reads, the admin reads the
 * console serves, and the integrity checker. Each runs with the limit at 1 byte, so any command
 * Redis counts as a write (and any command queued in a MULTI) is refused.
 */
describe('reads at maxmemory', () => {
  let full: RedisServer;
  let redis: Redis;
  let queue: Queue;
  let worker: Worker;
  let flows: FlowProducer;
  let admin: Admin;
  const name = uniqueQueueName('oom-reads');
  const prefix = 'bull';
  const ref = { prefix, name };
  // A second queue broken by hand, so the checker confirms suspects (its atomic re-read).
  const broken = { prefix, name: uniqueQueueName('oom-broken') };
  const brokenKey = (suffix: string) => `${prefix}:${broken.name}:${suffix}`;

  beforeAll(async () => {
    full = await startRedis();
    const connection = { host: '127.0.0.1', port: full.port, maxRetriesPerRequest: null };
    redis = new Redis(connection);
    queue = new Queue(name, { connection });
    flows = new FlowProducer({ connection });
    worker = new Worker(name, null, { connection, metrics: { maxDataPoints: 60 } });
    admin = createAdmin(redis, { prefixes: [prefix] });
    await queue.waitUntilReady();
    // completed, failed and active, fetched by hand so no worker runs in the background.
    await queue.add('done', { n: 1 }, { jobId: 'c1' });
    await queue.add('broken', { n: 2 }, { jobId: 'f1' });
    await queue.add('running', { n: 3 }, { jobId: 'a1' });
    const token = 'token-1';
    const done = (await worker.getNextJob(token))!;
    await done.moveToCompleted('ok', token, false);
    const broken = (await worker.getNextJob(token))!;
    await broken.moveToFailed(new Error('it broke'), token, false);
    expect((await worker.getNextJob(token))?.id).toBe('a1');
    // waiting, prioritized, delayed, a group, a flow parent waiting for its child, logs.
    await queue.add('w', { n: 4 }, { jobId: 'w1' });
    await queue.add('p', { n: 5 }, { jobId: 'p1', priority: 5 });
    await queue.add('d', { n: 6 }, { jobId: 'd1', delay: 600_000 });
    await queue.add('g', { n: 7 }, { jobId: 'g1', group: { id: 'acme' } });
    await flows.add({
      name: 'parent',
      queueName: name,
      opts: { jobId: 'parent1' },
      children: [{ name: 'child', queueName: name, data: {}, opts: { jobId: 'child1' } }],
    });
    await queue.addJobLog('w1', 'first line');
    await queue.addJobLog('w1', 'second line');
    await queue.upsertJobScheduler('new-year', { pattern: '0 0 1 1 *' });
    await queue.rateLimit(600_000);
    await redis.lpush(brokenKey('wait'), 'ghost');
    await redis.hset(brokenKey('p1'), 'name', 'p', 'data', '{}', 'opts', '{}', 'timestamp', 1);
    await redis.zadd(brokenKey('waiting-children'), 1, 'p1');
    await redis.sadd(brokenKey('p1:dependencies'), brokenKey('gone'));
    await redis.config('SET', 'maxmemory', '1');
    // The limit holds: a write is refused.
    await refusal(queue.add('late', {}));
  });

  afterAll(async () => {
    await redis?.config('SET', 'maxmemory', '0');
    await Promise.all(
      [worker, queue, flows].map((closable) => closable?.close().catch(() => undefined)),
    );
    await redis?.quit().catch(() => undefined);
    await full?.stop();
  });

  describe('the queue', () => {
    it.each([
      // g1 waits in its tenant group's line: part of waiting.
      ['waiting', ['w1', 'child1', 'g1']],
      ['active', ['a1']],
      ['prioritized', ['p1']],
      ['delayed', ['d1']],
      ['completed', ['c1']],
      ['failed', ['f1']],
      ['waiting-children', ['parent1']],
    ] as const)('getRanges and getJobs of %s', async (state, ids) => {
      // The scheduler's next run is delayed too; its id holds the run's time.
      const ours = (all: readonly (string | undefined)[]) =>
        all.filter((id) => !id?.startsWith('repeat:')).sort();
      expect(ours(await queue.getRanges(state, 0, -1))).toEqual([...ids].sort());
      const jobs = await queue.getJobs([state], 0, -1, true);
      expect(ours(jobs.map((job) => job.id))).toEqual([...ids].sort());
    });

    it('getRanges of several states at once, either order', async () => {
      const ids = await queue.getRanges(['completed', 'failed', 'active'], 0, -1, true);
      expect([...ids].sort()).toEqual(['a1', 'c1', 'f1']);
      expect(await queue.getRanges(['wait'], 0, 0, false)).toHaveLength(1);
    });

    it('getJobCounts, getCountsPerPriority and the count getters', async () => {
      expect(await queue.getJobCounts('waiting', 'active', 'completed', 'failed')).toEqual({
        waiting: 3,
        active: 1,
        completed: 1,
        failed: 1,
      });
      expect(await queue.getCountsPerPriority([0, 5])).toEqual({ '0': 3, '5': 1 });
      expect(await queue.getDelayedCount()).toBe(2); // d1 and the scheduler's next run
    });

    it('getJob, getJobState and getJobLogs', async () => {
      expect((await queue.getJob('f1'))?.failedReason).toBe('it broke');
      expect(await queue.getJobState('p1')).toBe('prioritized');
      expect(await queue.getJobLogs('w1')).toEqual({
        logs: ['first line', 'second line'],
        count: 2,
      });
      expect(await queue.getJobLogs('w1', 0, 0, false)).toEqual({
        logs: ['second line'],
        count: 2,
      });
    });

    it('getRateLimitTtl and isMaxed', async () => {
      const ttl = await queue.getRateLimitTtl();
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(600_000);
      expect(await queue.isMaxed()).toBe(false);
    });

    it('getMetrics', async () => {
      const metrics = await queue.getMetrics('completed');
      expect(metrics.meta.count).toBe(1);
      expect(metrics.count).toBe(metrics.data.length);
    });

    it("a parent's dependencies, whole, by page and counted", async () => {
      const parent = (await queue.getJob('parent1'))!;
      expect(await parent.getDependencies()).toMatchObject({
        unprocessed: [`${prefix}:${name}:child1`],
      });
      expect(await queue.getDependencies('parent1', 'pending', 0, 10)).toMatchObject({
        items: [{ id: `${prefix}:${name}:child1` }],
      });
      expect(await parent.getDependenciesCount()).toMatchObject({ unprocessed: 1, processed: 0 });
    });

    it('groups, schedulers, workers and meta', async () => {
      expect((await queue.getGroup('acme')).id).toBe('acme');
      expect((await queue.getGroupJobs('acme')).map((job) => job.id)).toEqual(['g1']);
      expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual(['new-year']);
      expect((await queue.getJobScheduler('new-year'))?.pattern).toBe('0 0 1 1 *');
      expect(Array.isArray(await queue.getWorkers())).toBe(true);
      expect(await queue.isPaused()).toBe(false);
    });
  });

  describe('the console reads (oxmq/admin)', () => {
    it('queue list, overview, limits and diagnosis', async () => {
      expect((await admin.queues.discover()).queues).toContainEqual(ref);
      expect((await admin.queues.overview(prefix, name)).counts.active).toBe(1);
      expect(await admin.queues.overviews([ref])).toHaveLength(1);
      expect(await admin.queues.limits(prefix, name)).toBeDefined();
      expect(await admin.queues.diagnose(prefix, name)).toBeDefined();
    });

    it.each(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'] as const)(
      'job list of %s',
      async (state) => {
        const page = await admin.jobs.list(prefix, name, { state, page: 1, pageSize: 10 });
        expect(page.jobs.length).toBeGreaterThan(0);
      },
    );

    it('find, detail, logs, children, timeline', async () => {
      expect((await admin.jobs.find(prefix, name, 'f1'))?.state).toBe('failed');
      expect((await admin.jobs.findEverywhere('f1')).length).toBe(1);
      const detail = await admin.jobs.detail(prefix, name, 'parent1');
      expect(detail?.id).toBe('parent1');
      expect((await admin.jobs.logs(prefix, name, 'w1', 1, 10)).count).toBe(2);
      expect(await admin.jobs.children(prefix, name, 'parent1')).toBeDefined();
      const timeline = await admin.jobs.timeline({
        prefix,
        queueName: name,
        jobId: 'c1',
        createdAt: detail!.timestamp - 60_000,
      });
      expect(timeline).toBeDefined();
    });

    it('search and a walk of a state', async () => {
      const found = await admin.jobs.search(prefix, name, {
        state: 'failed',
        mode: 'name',
        query: 'broken',
      });
      expect(found.matches.map((row) => row.id)).toEqual(['f1']);
      const seen: string[] = [];
      for await (const step of admin.jobs.scanRows(prefix, name, {
        state: 'completed',
        order: 'newest',
        filter: null,
      })) {
        seen.push(...step.views.map((row) => row.id!));
      }
      expect(seen).toEqual(['c1']);
    });

    it('error groups, metrics, workers, schedulers, groups, flows, events', async () => {
      expect((await admin.errorGroups.scan(prefix, name, {})).groups).toHaveLength(1);
      expect((await admin.metrics.queue(ref, 60)).completed.total).toBeGreaterThanOrEqual(0);
      expect(await admin.metrics.total([ref], 60)).toBeDefined();
      const scrape = await admin.metrics.prometheus(10);
      expect(scrape.failed).toEqual([]);
      expect(scrape.queues).toBe(1);
      // The oldest waiting job is read without SORT, which Redis refuses at maxmemory.
      const age = new RegExp(
        `oxmq_queue_oldest_waiting_age_seconds\\{[^}]*"${name}"[^}]*\\} (\\S+)`,
      );
      expect(Number(age.exec(scrape.text)?.[1])).toBeGreaterThan(0);
      expect(await admin.workers.roster([ref])).toHaveLength(1);
      expect(await admin.workers.heartbeats(prefix, name, 10)).toBeDefined();
      expect((await admin.schedulers.list(prefix, name, { page: 1, pageSize: 10 })).total).toBe(1);
      expect(await admin.groups.list(prefix, name, { cursor: '0', count: 10 })).toBeDefined();
      const parentKey = `${prefix}:${name}:parent1`;
      expect((await admin.flows.rootOf(`${prefix}:${name}:child1`))?.rootKey).toBe(parentKey);
      expect(
        (await admin.flows.graph({ prefix, queueName: name, jobId: 'parent1' }))?.nodes,
      ).toBeDefined();
      expect((await admin.flows.children({ parentKey })).nodes).toHaveLength(1);
      expect(await admin.events.latestIds([ref])).toHaveLength(1);
    });

    it('a bulk operation, a write, is refused with REDIS_OOM', async () => {
      const refused = await refusal(
        admin.bulk.create({ prefix, name, action: 'retry', state: 'failed', actor: 'ops' }),
      );
      expect(refused.code).toBe('REDIS_OOM');
    });

    it('the integrity checker confirms findings of a broken queue', async () => {
      const report = await checkQueueIntegrityToEnd(redis, broken);
      expect(report.clean).toBe(false);
      const found = Object.fromEntries(
        Object.entries(report.counts).filter(([, count]) => count > 0),
      );
      expect(found).toEqual({ 'member-without-hash': 1, 'parent-link': 1 });
      expect(report.samples['member-without-hash']).toEqual(['ghost']);
    });

    it('the integrity checker, to the end and step by step', async () => {
      const report = await checkQueueIntegrityToEnd(redis, ref);
      expect(report.clean).toBe(true);
      let cursor: string | undefined;
      do {
        const step = await checkQueueIntegrity(redis, ref, { cursor, budget: 2 });
        expect(step.clean).toBe(true);
        cursor = step.cursor;
      } while (cursor);
    });
  });
});
