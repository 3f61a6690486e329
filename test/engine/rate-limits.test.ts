/**
 * Rate limits and global concurrency, measured rather than assumed.
 *
 * How the limiter works (bullmq's fixed window, which OxMQ must share so bullmq workers on the
 * same queue obey the same limit; docs/redis-keys.md): every job start INCRs `Q limiter`; the
 * INCR that makes it 1 sets `PEXPIRE duration`; while the counter is at `max` no job starts. So each window opens
 * at the first start after the previous window expired and holds at most `max` starts. That is
 * the guarantee tested below, on the jobs' processedOn values:
 *
 *   fixed-window guarantee: partition the sorted starts greedily into windows that each begin at
 *   the first start not yet covered and last `duration`; no window holds more than `max` starts.
 *
 * It is not a sliding-window guarantee. A window whose starts come late (jobs trickled in) is
 * followed, right at its expiry, by a window whose starts come in a burst (a backlog): a
 * sliding `duration` around the edge then sees up to 2 × max starts. 2 × max is the honest
 * sliding bound: starts i and i + 2·max can never share two consecutive windows, so they are
 * more than `duration` apart. The issue asks for more ("no one-second window ever sees more
 * than 10 starts"); the trickle-then-backlog case below shows what the fixed window does there.
 *
 * processedOn is the worker's clock when it sent moveToActive, not Redis' clock at the INCR;
 * on two noisy cores a call may wait tens of ms before it runs. Windows are therefore measured
 * `CLOCK_SLACK_MS` shorter than `duration`, which only ever makes a check more lenient towards
 * the engine by that slack, never stricter.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue, RateLimitError, ValidationError, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { startLimitedChild, type LimitedChild } from '../helpers/limited-child';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { queueKey, queueKeys } from '../helpers/redis-state';
import { startRedis, type RedisServer } from '../setup/redis-server';

const track = useCleanup();
const CLOCK_SLACK_MS = 100;

/** Greedy fixed windows over sorted start times: each opens at the first start not yet covered. */
function fixedWindows(starts: number[], length: number): number[][] {
  const windows: number[][] = [];
  for (const start of [...starts].sort((a, b) => a - b)) {
    const current = windows[windows.length - 1];
    if (current && start < current[0]! + length) current.push(start);
    else windows.push([start]);
  }
  return windows;
}

/** The most starts any half-open interval [t, t + length) contains, and where it begins. */
function busiestSlidingWindow(starts: number[], length: number): { count: number; from: number } {
  const sorted = [...starts].sort((a, b) => a - b);
  let best = { count: 0, from: sorted[0] ?? 0 };
  let tail = 0;
  for (let head = 0; head < sorted.length; head++) {
    while (sorted[head]! - sorted[tail]! >= length) tail++;
    if (head - tail + 1 > best.count) best = { count: head - tail + 1, from: sorted[tail]! };
  }
  return best;
}

async function processedOnOf(redis: Redis, queueName: string, ids: string[]): Promise<number[]> {
  const values = await Promise.all(
    ids.map((id) => redis.hget(queueKey(queueName, id), 'processedOn')),
  );
  return values.map((value, i) => {
    if (value === null) throw new Error(`job ${ids[i]} has no processedOn`);
    return Number(value);
  });
}

function startedBy(children: LimitedChild[]): Map<string, number> {
  const owner = new Map<string, number>();
  for (const child of children) {
    for (const message of child.messages) {
      if (message.event === 'started') owner.set(String(message.jobId), child.pid);
    }
  }
  return owner;
}

async function completedCount(redis: Redis, queueName: string): Promise<number> {
  return redis.zcard(queueKey(queueName, 'completed'));
}

describe('queue-wide rate limit 10/s with two worker processes', () => {
  const MAX = 10;
  const DURATION = 1_000;

  async function setUp(label: string) {
    const name = uniqueQueueName(label);
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.setGlobalRateLimit(MAX, DURATION);
    const children = await Promise.all(
      [0, 1].map(() =>
        startLimitedChild({
          side: 'oxmq',
          queueName: name,
          port: inject('redisPort'),
          concurrency: 5,
          jobMs: 20,
          drainDelay: 1,
        }),
      ),
    );
    children.forEach((child) => track(child));
    return { name, redis, queue, children };
  }

  it('60 jobs: at most 10 starts per fixed window and in any sliding second, both processes take part', async () => {
    const { name, redis, queue, children } = await setUp('rl60');
    const jobs = await queue.addBulk(
      Array.from({ length: 60 }, (_, i) => ({ name: 'tick', data: { i } })),
    );
    await waitFor(async () => (await completedCount(redis, name)) === 60, 20_000, 50);

    const ids = jobs.map((job) => job.id);
    const starts = await processedOnOf(redis, name, ids);
    const windows = fixedWindows(starts, DURATION - CLOCK_SLACK_MS);
    expect(windows.map((w) => w.length).every((n) => n <= MAX)).toBe(true);
    expect(windows.length).toBeGreaterThanOrEqual(60 / MAX);
    // Window 6 opens at least 5 durations after window 1 (in Redis time): the limit really bit.
    const sorted = [...starts].sort((a, b) => a - b);
    expect(sorted[59]! - sorted[0]!).toBeGreaterThanOrEqual(5 * DURATION - CLOCK_SLACK_MS);
    // OxMQ's start log holds every `duration`-long stretch to MAX (a fixed window alone: 2 × MAX).
    expect(busiestSlidingWindow(starts, DURATION - CLOCK_SLACK_MS).count).toBeLessThanOrEqual(MAX);

    const owners = startedBy(children);
    expect(owners.size).toBe(60);
    expect(new Set(owners.values())).toEqual(new Set(children.map((child) => child.pid)));
    for (const child of children) {
      expect(child.messages.filter((m) => m.event === 'error')).toEqual([]);
    }
    // The counter never went past max, and the key always carries its window's expiry.
    const counter = Number((await redis.get(queueKey(name, 'limiter'))) ?? '0');
    expect(counter).toBeLessThanOrEqual(MAX);
    expect(await redis.pttl(queueKey(name, 'limiter'))).not.toBe(-1);
  });

  // The aim: "no one-second window ever sees more than 10 starts". bullmq's fixed window
  // (which the queue shares with bullmq workers) does not promise that: 1 start opens a window,
  // 9 trickle in 600 ms later, and a backlog of 10 starts the moment the window expires, so the
  // second after the trickle would hold 19 starts although no fixed window held more than 10.
  // OxMQ workers also keep a sliding log of starts (`limiter:log`), which refuses that burst.
  it('no one-second window ever sees more than 10 starts, even when jobs trickle in before a backlog', async () => {
    const { name, redis, queue } = await setUp('rltrickle');
    const opener = await queue.add('tick', { i: 0 });
    await waitFor(async () => (await completedCount(redis, name)) === 1, 10_000);
    await sleep(600);
    const trickle = await queue.addBulk(
      Array.from({ length: 9 }, (_, i) => ({ name: 'tick', data: { i: i + 1 } })),
    );
    await waitFor(async () => (await completedCount(redis, name)) === 10, 10_000);
    const backlog = await queue.addBulk(
      Array.from({ length: 10 }, (_, i) => ({ name: 'tick', data: { i: i + 10 } })),
    );
    await waitFor(async () => (await completedCount(redis, name)) === 20, 10_000);

    const ids = [opener, ...trickle, ...backlog].map((job) => job.id);
    const starts = await processedOnOf(redis, name, ids);
    // What the fixed window does promise holds here too. How many windows there are depends on
    // timing: the sliding log releases the backlog as the trickle's starts age out, so a slow
    // machine that spread the trickle spreads the backlog over a third window.
    const windows = fixedWindows(starts, DURATION - CLOCK_SLACK_MS);
    expect(windows.map((w) => w.length).every((n) => n <= MAX)).toBe(true);
    // ... and this is what the issue promises on top of it.
    const busiest = busiestSlidingWindow(starts, DURATION - CLOCK_SLACK_MS);
    expect(
      busiest.count,
      `a sliding window of ${DURATION - CLOCK_SLACK_MS} ms from ${busiest.from} holds ${busiest.count} starts`,
    ).toBeLessThanOrEqual(MAX);
  });
});

describe('limit precedence (docs/redis-keys.md)', () => {
  it("meta.max wins over the worker's max, the worker's duration over meta.duration", async () => {
    const name = uniqueQueueName('rlprec');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.setGlobalRateLimit(3, 60_000);
    const jobs = await queue.addBulk(
      Array.from({ length: 6 }, (_, i) => ({ name: 'tick', data: { i } })),
    );
    track(
      new Worker(name, async () => 'ok', {
        connection: redisOptions(),
        concurrency: 6,
        limiter: { max: 100, duration: 400 },
      }),
    );
    await waitFor(async () => (await completedCount(redis, name)) >= 3, 10_000);
    // 3 starts (meta.max), a window of 400 ms (the worker's duration), not 60 s.
    expect(await redis.get(queueKey(name, 'limiter'))).toBe('3');
    const ttl = await redis.pttl(queueKey(name, 'limiter'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    await waitFor(async () => (await completedCount(redis, name)) === 6, 10_000);
    const starts = await processedOnOf(
      redis,
      name,
      jobs.map((job) => job.id),
    );
    const windows = fixedWindows(starts, 400 - CLOCK_SLACK_MS).map((w) => w.length);
    expect(windows.every((n) => n <= 3)).toBe(true);
    expect(windows.length).toBeGreaterThanOrEqual(2);
  });
});

describe('global concurrency', () => {
  it('3 workers × concurrency 5 under a cap of 2: never more than 2 active, sampled in Redis and in processors', async () => {
    const name = uniqueQueueName('gc');
    const redis = track(rawClient());
    const sampler = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.setGlobalConcurrency(2);
    await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'job', data: { i } })));

    let running = 0;
    let maxRunning = 0;
    for (let w = 0; w < 3; w++) {
      track(
        new Worker(
          name,
          async () => {
            running++;
            maxRunning = Math.max(maxRunning, running);
            await sleep(30);
            running--;
            return 'ok';
          },
          { connection: redisOptions(), concurrency: 5, drainDelay: 1 },
        ),
      );
    }
    let done = false;
    let maxActive = 0;
    let samples = 0;
    const sampling = (async () => {
      while (!done) {
        maxActive = Math.max(maxActive, await sampler.llen(queueKey(name, 'active')));
        samples++;
        await sleep(2);
      }
    })();
    await waitFor(async () => (await completedCount(redis, name)) === 40, 20_000, 50);
    done = true;
    await sampling;

    expect(samples).toBeGreaterThan(50);
    expect(maxActive).toBeLessThanOrEqual(2);
    expect(maxRunning).toBeLessThanOrEqual(2);
    // The cap was actually reached, so the bound above was under pressure.
    expect(maxRunning).toBe(2);
  });

  // OxMQ beyond bullmq (docs/redis-keys.md): a job that
  // leaves active without its worker fetching the next one (here: a final failure) wakes an idle
  // worker. Without that marker both workers sit in BZPOPMIN for their 5 s drain delay.
  it('a freed slot wakes idle workers: cap 1, two workers with drainDelay 5, no 5 s gaps', async () => {
    const name = uniqueQueueName('gcwake');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.setGlobalConcurrency(1);
    const workers = [0, 1].map(() =>
      track(
        new Worker(
          name,
          async (job) => {
            await sleep(30);
            if ((job.data as { fail: boolean }).fail) throw new Error('boom');
            return 'ok';
          },
          { connection: redisOptions(), concurrency: 2, drainDelay: 5 },
        ),
      ),
    );
    await Promise.all(workers.map((w) => w.waitUntilReady()));
    await sleep(300); // both idle, blocked on the marker
    const jobs = await queue.addBulk(
      Array.from({ length: 6 }, (_, i) => ({ name: 'job', data: { fail: i % 2 === 0 } })),
    );
    const finished = async () =>
      (await redis.zcard(queueKey(name, 'completed'))) +
      (await redis.zcard(queueKey(name, 'failed')));
    await waitFor(async () => (await finished()) === 6, 25_000, 50);

    const hashes = await Promise.all(jobs.map((job) => redis.hgetall(queueKey(name, job.id))));
    const runs = hashes
      .map((hash) => ({ on: Number(hash.processedOn), off: Number(hash.finishedOn) }))
      .sort((a, b) => a.on - b.on);
    const gaps = runs.slice(1).map((run, i) => run.on - runs[i]!.off);
    expect(gaps).toHaveLength(5);
    expect(Math.max(...gaps)).toBeLessThan(2_000);
  });
});

describe('a rate-limited worker sleeps instead of polling Redis', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });
  const privateConnection = () => ({
    host: '127.0.0.1',
    port: server.port,
    maxRetriesPerRequest: null,
  });

  /** Calls per command since the server started, INFO itself left out. */
  async function callsBesidesInfo(redis: Redis): Promise<Map<string, number>> {
    const calls = Object.entries(await commandCalls(redis));
    return new Map(calls.filter(([command]) => command !== 'info'));
  }

  function delta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
    const changed: Record<string, number> = {};
    for (const [command, calls] of after) {
      const grown = calls - (before.get(command) ?? 0);
      if (grown > 0) changed[command] = grown;
    }
    return changed;
  }

  const cases = [
    { label: 'worker limiter', limit: 'worker' },
    { label: 'queue-wide limit', limit: 'queue' },
    { label: 'manual rateLimit + RateLimitError', limit: 'manual' },
  ] as const;

  for (const { label, limit } of cases) {
    it(`${label}: a handful of Redis commands over 3 s of a 5 s window`, async () => {
      const name = uniqueQueueName('rlidle');
      const redis = track(new Redis(privateConnection()));
      const queue = track(new Queue(name, { connection: privateConnection() }));
      await queue.waitUntilReady();
      if (limit === 'queue') await queue.setGlobalRateLimit(1, 5_000);
      await queue.addBulk([
        { name: 'first', data: {} },
        { name: 'second', data: {} },
      ]);
      let attempts = 0;
      const worker = track(
        new Worker(
          name,
          async () => {
            attempts++;
            if (limit === 'manual' && attempts === 1) {
              await queue.rateLimit(5_000);
              throw new RateLimitError();
            }
            return 'ok';
          },
          {
            connection: privateConnection(),
            ...(limit === 'worker' && { limiter: { max: 1, duration: 5_000 } }),
          },
        ),
      );
      // Limited: one job done (or, manually limited, put back), the other still waiting.
      await waitFor(async () => {
        const [done, waiting, ttl] = await Promise.all([
          redis.zcard(queueKey(name, 'completed')),
          redis.llen(queueKey(name, 'wait')),
          redis.pttl(queueKey(name, 'limiter')),
        ]);
        return (limit === 'manual' ? waiting === 2 : done === 1 && waiting === 1) && ttl > 3_500;
      }, 10_000);
      await sleep(100); // let the worker take in the limited reply

      const before = await callsBesidesInfo(redis);
      await sleep(3_000);
      const after = await callsBesidesInfo(redis);
      const used = delta(before, after);
      const total = Object.values(used).reduce((sum, n) => sum + n, 0);
      expect(total, JSON.stringify(used)).toBeLessThanOrEqual(10);
      expect(await redis.zcard(queueKey(name, 'completed'))).toBe(limit === 'manual' ? 0 : 1);

      // And it does wake up when the window reopens.
      await waitFor(async () => (await redis.zcard(queueKey(name, 'completed'))) === 2, 10_000);
      await worker.close();
    });
  }
});

describe('bad input is refused before anything is written', () => {
  async function snapshot(redis: Redis, name: string) {
    return {
      keys: await queueKeys(redis, name),
      meta: await redis.hgetall(queueKey(name, 'meta')),
    };
  }

  it('setGlobalRateLimit(0, 1000), (5, -1), rateLimit(-5), setGlobalConcurrency(0), limiter { max: 0 }', async () => {
    const name = uniqueQueueName('rlbad');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.waitUntilReady();
    const before = await snapshot(redis, name);
    expect(before.keys).toEqual([queueKey(name, 'meta')]);

    await expect(queue.setGlobalRateLimit(0, 1_000)).rejects.toBeInstanceOf(ValidationError);
    await expect(queue.setGlobalRateLimit(5, -1)).rejects.toBeInstanceOf(ValidationError);
    await expect(queue.setGlobalRateLimit(5, 0)).rejects.toBeInstanceOf(ValidationError);
    await expect(queue.setGlobalRateLimit(-3, 1_000)).rejects.toBeInstanceOf(ValidationError);
    await expect(queue.rateLimit(-5)).rejects.toBeInstanceOf(ValidationError);
    await expect(queue.setGlobalConcurrency(0)).rejects.toBeInstanceOf(ValidationError);
    for (const limiter of [
      { max: 0, duration: 1_000 },
      { max: 5, duration: -1 },
      { max: 1.5, duration: 1_000 },
    ]) {
      expect(
        () => new Worker(name, async () => 'ok', { connection: redisOptions(), limiter }),
      ).toThrow(ValidationError);
    }

    expect(await snapshot(redis, name)).toEqual(before);
    expect(await queue.getGlobalRateLimit()).toBeNull();
    expect(await queue.getGlobalConcurrency()).toBeNull();
    expect(await queue.getRateLimitTtl()).toBe(-2);
  });
});
