/**
 * Scrape-time queue metrics (engine/admin/redis/prometheus, docs/metrics.md "Console") on a real
 * Redis: the bullmq part is compared byte for byte with the real bullmq 6.7.0's
 * exportPrometheusMetrics on the same state; the oxmq_queue_* families are checked on states
 * made by OxMQ's own Queue and Worker (paused, rate limited, global concurrency, workers, the
 * metrics option), and the reads are counted (one round trip per queue).
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { collectConsoleMetrics, exportQueuePrometheusMetrics } from 'oxmq/admin';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { startTcpProxy } from '../helpers/engine-tcp-proxy';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';

const track = useCleanup();
const client = rawClient();
afterAll(() => client.quit());

/** A prefix of this test's own, so console discovery sees only what the test wrote. */
const uniquePrefix = (label: string) => `prom-${label}-${randomUUID().slice(0, 6)}`;

interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: string;
}

/** Sample lines of a text, label values unescaped, values as written. */
function samples(text: string): ParsedSample[] {
  return parsePrometheusText(text).samples.map((sample) => ({
    ...sample,
    value: String(sample.value),
  }));
}

/** The value of one sample of a family for a queue; undefined when absent. */
function valueOf(text: string, family: string, queue: string): number | undefined {
  const found = samples(text).filter((s) => s.name === family && s.labels.queue === queue);
  if (found.length > 1) throw new Error(`${family} appears ${found.length} times for ${queue}`);
  return found[0] === undefined ? undefined : Number(found[0].value);
}

/** bullmq's text must open ours exactly, followed by OxMQ's families only. */
async function expectBullmqPrefix(
  prefix: string,
  name: string,
  globals?: Record<string, string>,
): Promise<string> {
  const ours = await exportQueuePrometheusMetrics(client, prefix, name, globals);
  const bull = track(new BullQueue(name, { connection: redisOptions(), prefix }));
  const theirs = await bull.exportPrometheusMetrics(globals);
  expect(ours.slice(0, theirs.length + 1)).toBe(`${theirs}\n`);
  const rest = ours.slice(theirs.length + 1).split('\n');
  expect(
    rest.every((line) => /^(# (HELP|TYPE) )?oxmq_queue_/.test(line)),
    rest.join('\n'),
  ).toBe(true);
  return ours;
}

describe('exportQueuePrometheusMetrics: bullmq 6.7.0 text first', () => {
  it('matches bullmq byte for byte on every state, with and without global variables', async () => {
    const prefix = uniquePrefix('b');
    // Every character the format escapes, in the queue name and in a global variable.
    const name = `exp"ort\\${randomUUID().slice(0, 6)}\nx`;
    const connection = redisOptions();
    const queue = track(new Queue(name, { connection, prefix }));

    // Completed and failed counters: a worker with the metrics option.
    const finished = track(
      new Worker(
        name,
        async (job) => {
          if (job.name === 'bad') throw new Error('no');
          return 1;
        },
        { connection, prefix, metrics: { maxDataPoints: 60 } },
      ),
    );
    await queue.addBulk([
      { name: 'ok', data: {} },
      { name: 'ok', data: {} },
      { name: 'bad', data: {}, opts: { attempts: 1 } },
    ]);
    await waitFor(async () => {
      const counts = await queue.getJobCounts('completed', 'failed');
      return counts.completed === 2 && counts.failed === 1;
    });
    await finished.close();

    // One job held active by a worker that waits for the test.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holder = track(
      new Worker(name, () => gate, { connection, prefix, concurrency: 1, name: 'holder' }),
    );
    try {
      await queue.add('held', {});
      await waitFor(async () => (await queue.getJobCounts('active')).active === 1);
      await checkEveryState(queue, prefix, name);
    } finally {
      release(); // else closing the holder would wait for its job forever
    }
    await holder.close();
  });

  it('matches bullmq for a queue nothing was added to, and one bullmq itself wrote', async () => {
    const prefix = uniquePrefix('e');
    const empty = uniqueQueueName('empty');
    await track(new Queue(empty, { connection: redisOptions(), prefix })).waitUntilReady();
    const text = await expectBullmqPrefix(prefix, empty);
    expect(valueOf(text, 'oxmq_queue_oldest_waiting_age_seconds', empty)).toBe(0);
    expect(valueOf(text, 'oxmq_queue_completed_last_minute', empty)).toBe(0);

    const theirs = uniqueQueueName('bull-side');
    const bull = track(new BullQueue(theirs, { connection: redisOptions(), prefix }));
    await bull.add('x', {}, { priority: 2 });
    await bull.add('y', {}, { delay: 60_000 });
    await expectBullmqPrefix(prefix, theirs, { region: 'eu' });
  });
});

/** Waiting, LIFO, prioritized, delayed and a flow parent added to a queue with one active job. */
async function checkEveryState(queue: Queue, prefix: string, name: string): Promise<void> {
  const connection = redisOptions();
  await queue.addBulk([
    { name: 'w1', data: {} },
    { name: 'w2', data: {}, opts: { lifo: true } },
    { name: 'p1', data: {}, opts: { priority: 3 } },
    { name: 'p2', data: {}, opts: { priority: 1 } },
    { name: 'd1', data: {}, opts: { delay: 600_000 } },
  ]);
  const flows = track(new FlowProducer({ connection, prefix }));
  await flows.add({
    name: 'parent',
    queueName: name,
    children: [{ name: 'child', queueName: uniqueQueueName('kids') }],
  });

  const globals = { env: 'prod', team: 'a"b\\c\nd' };
  const text = await expectBullmqPrefix(prefix, name);
  await expectBullmqPrefix(prefix, name, globals);
  expect(samples(text).filter((s) => s.name === 'bullmq_job_count')).toEqual(
    [
      ['active', 1],
      ['completed', 2],
      ['delayed', 1],
      ['failed', 1],
      ['prioritized', 2],
      ['waiting', 2],
      ['waiting-children', 1],
    ].map(([state, count]) => ({
      name: 'bullmq_job_count',
      labels: { queue: name, state },
      value: String(count),
    })),
  );
  expect(valueOf(text, 'bullmq_job_completed_total', name)).toBe(2);
  expect(valueOf(text, 'bullmq_job_failed_total', name)).toBe(1);

  await queue.pause();
  await expectBullmqPrefix(prefix, name, globals);

  // A bullmq 4/5 marker at the tail of wait is not a job: ours first, since bullmq's count
  // script pops the marker.
  await client.rpush(`${prefix}:${name}:wait`, '0:1000');
  const marked = await expectBullmqPrefix(prefix, name);
  expect(samples(marked)).toContainEqual({
    name: 'bullmq_job_count',
    labels: { queue: name, state: 'waiting' },
    value: '2',
  });
}

describe('oxmq_queue_* families', () => {
  it('reports paused, the oldest waiting job, global concurrency and connected workers', async () => {
    const prefix = uniquePrefix('x');
    const name = uniqueQueueName('extras');
    const connection = redisOptions();
    const queue = track(new Queue(name, { connection, prefix }));
    const now = Date.now();
    // FIFO: the first added is at the tail of wait, the next to run and the oldest.
    await queue.add('first', {}, { timestamp: now - 200_000 });
    await queue.add('second', {}, { timestamp: now - 10_000 });
    let text = await exportQueuePrometheusMetrics(client, prefix, name);
    let age = valueOf(text, 'oxmq_queue_oldest_waiting_age_seconds', name)!;
    expect(age).toBeGreaterThanOrEqual(200);
    expect(age).toBeLessThan(230);
    // A prioritized job added earlier still is older than the head of wait.
    await queue.add('older-but-prioritized', {}, { timestamp: now - 300_000, priority: 5 });

    text = await exportQueuePrometheusMetrics(client, prefix, name);
    expect(valueOf(text, 'oxmq_queue_paused', name)).toBe(0);
    age = valueOf(text, 'oxmq_queue_oldest_waiting_age_seconds', name)!;
    expect(age).toBeGreaterThanOrEqual(300);
    expect(age).toBeLessThan(330);
    // Only queues that set a global concurrency have the family.
    expect(text).not.toContain('oxmq_queue_global_concurrency_limit');
    expect(valueOf(text, 'oxmq_queue_workers', name)).toBe(0);
    expect(samples(text).find((s) => s.name === 'oxmq_queue_paused')!.labels).toEqual({
      prefix,
      queue: name,
    });

    await queue.pause();
    await queue.setGlobalConcurrency(3);
    // A paused queue's workers stay connected: one OxMQ, one bullmq (and a QueueEvents-like
    // reader would not count).
    const ours = track(new Worker(name, async () => 1, { connection, prefix, name: 'ox' }));
    const theirs = track(new BullWorker(name, async () => 1, { connection, prefix }));
    await Promise.all([ours.waitUntilReady(), theirs.waitUntilReady()]);
    await waitFor(async () => (await queue.getWorkers()).length === 2);

    text = await exportQueuePrometheusMetrics(client, prefix, name, { env: 'ci', queue: 'x' });
    expect(valueOf(text, 'oxmq_queue_paused', name)).toBe(1);
    expect(valueOf(text, 'oxmq_queue_global_concurrency_limit', name)).toBe(3);
    expect(valueOf(text, 'oxmq_queue_workers', name)).toBe(2);
    // Paused jobs stay in wait (bullmq 6): the backlog keeps ageing.
    expect(valueOf(text, 'oxmq_queue_oldest_waiting_age_seconds', name)).toBeGreaterThan(299);
    // Global variables follow the queue's labels; one named like a label is not repeated.
    expect(text).toContain(`oxmq_queue_paused{prefix="${prefix}", queue="${name}", env="ci"} 1`);
  });

  it('reports the rate limiter: a manual rateLimit, a reached global limit, an unreached one', async () => {
    const prefix = uniquePrefix('r');
    const connection = redisOptions();
    const manual = uniqueQueueName('manual');
    const manualQueue = track(new Queue(manual, { connection, prefix }));
    await manualQueue.rateLimit(5_000);
    let text = await exportQueuePrometheusMetrics(client, prefix, manual);
    const ttl = valueOf(text, 'oxmq_queue_rate_limit_ttl_seconds', manual)!;
    expect(ttl).toBeGreaterThan(4);
    expect(ttl).toBeLessThanOrEqual(5);

    // A global limit of 2 per minute: two starts reach it, the third job waits.
    const limited = uniqueQueueName('limited');
    const limitedQueue = track(new Queue(limited, { connection, prefix }));
    await limitedQueue.setGlobalRateLimit(2, 60_000);
    await limitedQueue.add('one', {});
    text = await exportQueuePrometheusMetrics(client, prefix, limited);
    expect(valueOf(text, 'oxmq_queue_rate_limit_ttl_seconds', limited)).toBe(0);
    const worker = track(new Worker(limited, async () => 1, { connection, prefix }));
    await waitFor(async () => (await limitedQueue.getJobCounts('completed')).completed === 1);
    // One start of two: the limiter key lives, but holds nothing back yet.
    text = await exportQueuePrometheusMetrics(client, prefix, limited);
    expect(await client.pttl(`${prefix}:${limited}:limiter`)).toBeGreaterThan(0);
    expect(valueOf(text, 'oxmq_queue_rate_limit_ttl_seconds', limited)).toBe(0);
    await limitedQueue.addBulk([
      { name: 'two', data: {} },
      { name: 'three', data: {} },
    ]);
    await waitFor(async () => (await limitedQueue.getJobCounts('completed')).completed === 2);
    text = await exportQueuePrometheusMetrics(client, prefix, limited);
    expect(valueOf(text, 'oxmq_queue_rate_limit_ttl_seconds', limited)).toBeGreaterThan(50);
    await worker.close();
  });

  it("counts the last closed minute from the queue's metrics keys", async () => {
    const prefix = uniquePrefix('m');
    const name = uniqueQueueName('minutes');
    const connection = redisOptions();
    const queue = track(new Queue(name, { connection, prefix }));
    // The worker stamps finishes with Date.now(): only Date is faked, timers stay real.
    const minute = 60_000;
    const start = (Math.floor(Date.now() / minute) - 10) * minute + 5_000;
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      vi.setSystemTime(start);
      const worker = track(
        new Worker(
          name,
          async (job) => {
            if (job.name === 'bad') throw new Error('no');
          },
          { connection, prefix, metrics: { maxDataPoints: 60 } },
        ),
      );
      const finishAll = async (jobs: string[], total: number) => {
        await queue.addBulk(jobs.map((jobName) => ({ name: jobName, data: {} })));
        await waitFor(async () => {
          return (await queue.getJobCountByTypes('completed', 'failed')) === total;
        });
      };
      // Minute 1: three completed, one failed. Minute 2: two completed, one failed.
      await finishAll(['ok', 'ok', 'ok', 'bad'], 4);
      vi.setSystemTime(start + minute);
      await finishAll(['ok', 'ok', 'bad'], 7);
      await worker.close();
    } finally {
      vi.useRealTimers();
    }

    const at = async (time: number) =>
      (await collectConsoleMetrics(client, [prefix], { now: () => time })).text;
    // Still in minute 2: minute 1 is the last closed one.
    let text = await at(start + minute + 30_000);
    expect(valueOf(text, 'oxmq_queue_completed_last_minute', name)).toBe(3);
    expect(valueOf(text, 'oxmq_queue_failed_last_minute', name)).toBe(1);
    expect(valueOf(text, 'bullmq_job_completed_total', name)).toBe(5);
    expect(valueOf(text, 'bullmq_job_failed_total', name)).toBe(2);
    // In minute 3: minute 2 closed.
    text = await at(start + 2 * minute);
    expect(valueOf(text, 'oxmq_queue_completed_last_minute', name)).toBe(2);
    expect(valueOf(text, 'oxmq_queue_failed_last_minute', name)).toBe(1);
    // Later: nothing finished in the minute before.
    text = await at(start + 3 * minute);
    expect(valueOf(text, 'oxmq_queue_completed_last_minute', name)).toBe(0);
    expect(valueOf(text, 'bullmq_job_completed_total', name)).toBe(5);
  });
});

describe('collectConsoleMetrics', () => {
  it('merges families across queues with prefix and queue labels, under a cap', async () => {
    const prefixA = uniquePrefix('ca');
    const prefixB = uniquePrefix('cb');
    const connection = redisOptions();
    for (const [prefix, name] of [
      [prefixA, 'alpha'],
      [prefixA, 'beta'],
      [prefixB, 'alpha'],
      [prefixB, 'gamma'],
    ] as const) {
      const queue = track(new Queue(name, { connection, prefix }));
      await queue.add('job', {});
    }
    // The server is shared by the whole test run: discovery must walk all of its keys.
    const scrape = await collectConsoleMetrics(client, [prefixA, prefixB], {
      maxQueues: 3,
      scan: { maxScan: 100_000_000 },
    });
    expect(scrape).toMatchObject({ queues: 3, omitted: 1, discoveryComplete: true, failed: [] });
    expect(scrape.text.endsWith('\n')).toBe(true);

    const lines = scrape.text.trimEnd().split('\n');
    const families = lines.filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]);
    expect(new Set(families).size).toBe(families.length); // HELP/TYPE once per family
    expect(families).toEqual([
      'bullmq_job_count',
      'bullmq_job_completed_total',
      'bullmq_job_failed_total',
      'oxmq_queue_oldest_waiting_age_seconds',
      'oxmq_queue_paused',
      'oxmq_queue_rate_limit_ttl_seconds',
      'oxmq_queue_workers',
      'oxmq_queue_completed_last_minute',
      'oxmq_queue_failed_last_minute',
      'oxmq_scrape_queues',
      'oxmq_scrape_queues_omitted',
    ]);
    // Each family's samples follow its TYPE line, before the next family starts.
    const familyOf = (line: string) => /^(?:# \w+ )?([a-z_]+)/.exec(line)![1];
    const order = lines.map(familyOf).filter((f, i, all) => i === 0 || f !== all[i - 1]);
    expect(order).toEqual(families);

    const waiting = samples(scrape.text).filter(
      (s) => s.name === 'bullmq_job_count' && s.labels.state === 'waiting',
    );
    // Sorted by prefix, then name; the cap leaves out the last.
    expect(waiting.map((s) => s.labels)).toEqual([
      { prefix: prefixA, queue: 'alpha', state: 'waiting' },
      { prefix: prefixA, queue: 'beta', state: 'waiting' },
      { prefix: prefixB, queue: 'alpha', state: 'waiting' },
    ]);
    expect(waiting.map((s) => s.value)).toEqual(['1', '1', '1']);
    expect(lines).toContain('oxmq_scrape_queues 3');
    expect(lines).toContain('oxmq_scrape_queues_omitted 1');
  });

  it('skips a queue Redis refuses to read and describes the others', async () => {
    const prefix = uniquePrefix('bad');
    await track(new Queue('fine', { connection: redisOptions(), prefix })).waitUntilReady();
    await track(new Queue('broken', { connection: redisOptions(), prefix })).waitUntilReady();
    await client.set(`${prefix}:broken:wait`, 'not a list');
    const scrape = await collectConsoleMetrics(client, [prefix]);
    expect(scrape.queues).toBe(1);
    expect(scrape.failed).toEqual([
      { queue: { prefix, name: 'broken' }, error: expect.stringContaining('WRONGTYPE') },
    ]);
    expect(valueOf(scrape.text, 'oxmq_queue_paused', 'fine')).toBe(0);
    expect(scrape.text).not.toContain('queue="broken"');
  });

  it('says 0 queues and no queue families when nothing is found', async () => {
    const scrape = await collectConsoleMetrics(client, [uniquePrefix('none')]);
    expect(scrape.text).toBe(
      [
        '# HELP oxmq_scrape_queues Queues described in this scrape.',
        '# TYPE oxmq_scrape_queues gauge',
        'oxmq_scrape_queues 0',
        '# HELP oxmq_scrape_queues_omitted Queues left out of this scrape by its cap on the number of queues.',
        '# TYPE oxmq_scrape_queues_omitted gauge',
        'oxmq_scrape_queues_omitted 0',
        '',
      ].join('\n'),
    );
  });
});

describe('on a private Redis: round trips and commands', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('reads one queue in one round trip, CLIENT LIST included', async () => {
    const proxy = track(await startTcpProxy(server.port));
    const viaProxy = track(rawClientOn(proxy.port));
    const direct = track(rawClientOn(server.port));
    const name = uniqueQueueName('trip');
    const queue = track(new Queue(name, { connection: { host: '127.0.0.1', port: server.port } }));
    await queue.addBulk([
      { name: 'a', data: {} },
      { name: 'b', data: {}, opts: { priority: 2 } },
    ]);
    await viaProxy.ping();
    await direct.config('RESETSTAT');
    const before = proxy.totalTurns();
    const text = await exportQueuePrometheusMetrics(viaProxy, 'bull', name);
    expect(proxy.totalTurns() - before).toBe(1);
    expect(valueOf(text, 'oxmq_queue_oldest_waiting_age_seconds', name)).toBeGreaterThanOrEqual(0);
    const calls = await commandCalls(direct);
    expect(calls).toMatchObject({
      llen: 2,
      // The five sorted-set states, and the tenant groups' delayed jobs.
      zcard: 6,
      hmget: 3,
      get: 1,
      pttl: 1,
      lindex: 2,
      sort: 2,
      'client|list': 1,
      // The tenant groups' jobs (lua/countGroupedJobs-1.lua): the ring of groups with ready
      // jobs, empty here, is its only whole read.
      lrange: 1,
    });
    // Nothing else that walks a whole collection or the keyspace.
    for (const whole of ['zrange', 'hgetall', 'keys', 'scan', 'smembers'])
      expect(calls[whole], whole).toBeUndefined();
  });

  it('reads a queue whose name holds a * in two round trips, with the right age', async () => {
    const proxy = track(await startTcpProxy(server.port));
    const viaProxy = track(rawClientOn(proxy.port));
    const name = `star*${randomUUID().slice(0, 6)}`;
    const queue = track(new Queue(name, { connection: { host: '127.0.0.1', port: server.port } }));
    await queue.add('old', {}, { timestamp: Date.now() - 90_000 });
    await viaProxy.ping();
    const before = proxy.totalTurns();
    const text = await exportQueuePrometheusMetrics(viaProxy, 'bull', name);
    expect(proxy.totalTurns() - before).toBe(2);
    const age = valueOf(text, 'oxmq_queue_oldest_waiting_age_seconds', name)!;
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(120);
  });

  it('scrapes N queues with N pipelines and one CLIENT LIST', async () => {
    const proxy = track(await startTcpProxy(server.port));
    const viaProxy = track(rawClientOn(proxy.port));
    const direct = track(rawClientOn(server.port));
    const prefix = uniquePrefix('n');
    const connection = { host: '127.0.0.1', port: server.port };
    for (let i = 0; i < 5; i++) {
      await track(new Queue(`q${i}`, { connection, prefix })).add('job', {});
    }
    await viaProxy.ping();
    await direct.config('RESETSTAT');
    const before = proxy.totalTurns();
    // One pipeline at a time, so each is its own turn on the wire.
    const scrape = await collectConsoleMetrics(viaProxy, [prefix], { concurrency: 1 });
    const turns = proxy.totalTurns() - before;
    expect(scrape.queues).toBe(5);
    const calls = await commandCalls(direct);
    expect(calls['client|list']).toBe(1);
    expect(calls.sort).toBe(10);
    expect(calls.llen).toBe(10);
    // SCAN rounds, then five pipelines; CLIENT LIST shares a turn or takes one of its own.
    expect(turns).toBeGreaterThanOrEqual(calls.scan! + 5);
    expect(turns).toBeLessThanOrEqual(calls.scan! + 6);
  });
});

/** A client of its own on `port` (the private Redis, or the proxy in front of it). */
function rawClientOn(port: number): Redis {
  return new Redis({ ...redisOptions(), port });
}

describe('Queue.exportPrometheusMetrics', () => {
  it('is bullmq’s text for the queue, then OxMQ’s gauges, as a bullmq user calls it', async () => {
    const prefix = uniquePrefix('q');
    const name = `method-${randomUUID().slice(0, 6)}`;
    const queue = track(new Queue(name, { connection: redisOptions(), prefix }));
    await queue.addBulk([
      { name: 'a', data: {} },
      { name: 'b', data: {}, opts: { delay: 60_000 } },
    ]);
    const bull = track(new BullQueue(name, { connection: redisOptions(), prefix }));
    const theirs = await bull.exportPrometheusMetrics({ env: 'test' });
    const ours = await queue.exportPrometheusMetrics({ env: 'test' });
    expect(ours.startsWith(`${theirs}\n`)).toBe(true);
    expect(valueOf(ours, 'oxmq_queue_oldest_waiting_age_seconds', name)).toBeGreaterThanOrEqual(0);
    expect(valueOf(ours, 'oxmq_queue_paused', name)).toBe(0);
  });
});
