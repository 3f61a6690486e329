import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  DelayedError,
  Job,
  Queue,
  RateLimitError,
  UnrecoverableError,
  WaitingError,
  Worker,
  type JobsOptions,
  type WorkerOptions,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { streamEntries } from '../helpers/redis-state';

const track = useCleanup();

const TRUNCATION_MARKER = '…[truncated by oxmq]';
const FAILED_REASON_MAX_BYTES = 8 * 1024;
const STACKTRACE_MAX_BYTES = 8 * 1024;

interface StreamEvent {
  /** Redis time (ms) of the XADD, from the entry id. */
  at: number;
  fields: Record<string, string>;
}

async function jobEvents(redis: Redis, name: string, jobId: string): Promise<StreamEvent[]> {
  return (await streamEntries(redis, name))
    .map(({ id, fields }) => ({ at: Number(id.split('-')[0]), fields }))
    .filter((event) => event.fields.jobId === jobId);
}

async function delayedEvents(redis: Redis, name: string, jobId: string) {
  return (await jobEvents(redis, name, jobId))
    .filter((e) => e.fields.event === 'delayed')
    .map((e) => ({ at: e.at, due: Number(e.fields.delay) }));
}

/**
 * The backoff the engine chose for each retry, from the `delayed` events: the due time it wrote
 * minus the Redis time the event was written. The engine computes due = its now + delay just
 * before the call, so this is the delay minus a little transport time, never more.
 */
async function observedBackoffs(redis: Redis, name: string, jobId: string): Promise<number[]> {
  return (await delayedEvents(redis, name, jobId)).map((e) => e.due - e.at);
}

/** Transport time allowed between the engine's clock read and the script's XADD. */
const TRANSPORT_SLACK = 280;
/** The Redis clock and Node's clock are the same machine clock; allow rounding only. */
const CLOCK_SLACK = 10;

function expectBackoff(observed: number | undefined, expected: number): void {
  expect(observed).toBeDefined();
  expect(observed!).toBeLessThanOrEqual(expected + CLOCK_SLACK);
  expect(observed!).toBeGreaterThanOrEqual(expected - TRANSPORT_SLACK);
}

interface Attempt {
  startedAt: number;
  processedOn: number | undefined;
  failedAt?: number;
}

/** A worker whose processor fails while `fail(attemptNumber)` says so, recording each attempt. */
function failingWorker(
  name: string,
  fail: (attempt: number, job: Job) => Error | undefined,
  opts: Partial<WorkerOptions> = {},
) {
  const attempts: Attempt[] = [];
  const errors: unknown[] = [];
  const worker = track(
    new Worker(
      name,
      async (job: Job) => {
        const attempt: Attempt = { startedAt: Date.now(), processedOn: job.processedOn };
        attempts.push(attempt);
        const error = fail(attempts.length, job);
        if (error) {
          attempt.failedAt = Date.now();
          throw error;
        }
        return 'ok';
      },
      { connection: redisOptions(), ...opts },
    ),
  );
  worker.on('error', (error) => errors.push(error));
  return { worker, attempts, errors };
}

async function addOne(name: string, opts: JobsOptions, data: unknown = {}) {
  const queue = track(new Queue(name, { connection: redisOptions() }));
  return queue.add('r', data, opts);
}

async function waitForState(
  redis: Redis,
  name: string,
  jobId: string,
  set: 'completed' | 'failed',
) {
  await waitFor(async () => (await redis.zscore(`bull:${name}:${set}`, jobId)) !== null, 20_000);
}

describe('backoff', () => {
  it('fixed: every retry is due `delay` ms after the failure', async () => {
    const name = uniqueQueueName('fixed');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3, backoff: 400 });
    expect(JSON.parse((await redis.hget(`bull:${name}:${job.id}`, 'opts'))!)).toMatchObject({
      attempts: 3,
      backoff: { type: 'fixed', delay: 400 },
    });
    const { attempts } = failingWorker(name, (n) => new Error(`boom ${n}`));
    await waitForState(redis, name, job.id, 'failed');

    expect(attempts).toHaveLength(3);
    const delayed = await delayedEvents(redis, name, job.id);
    expect(delayed).toHaveLength(2);
    for (const [i, event] of delayed.entries()) {
      expectBackoff(event.due - event.at, 400);
      expect(event.due - attempts[i]!.failedAt!).toBeGreaterThanOrEqual(400);
      // The next attempt never starts before the retry is due.
      expect(attempts[i + 1]!.processedOn).toBeGreaterThanOrEqual(event.due);
    }
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.atm).toBe('3');
    expect(hash.ats).toBe('3');
    expect(hash.failedReason).toBe('boom 3');
    expect(JSON.parse(hash.stacktrace!)).toHaveLength(3);
    const exhausted = (await jobEvents(redis, name, job.id)).find(
      (e) => e.fields.event === 'retries-exhausted',
    );
    expect(exhausted?.fields.attemptsMade).toBe('3');
  });

  it('exponential: delay, 2·delay, 4·delay', async () => {
    const name = uniqueQueueName('expo');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 4, backoff: { type: 'exponential', delay: 300 } });
    const { attempts } = failingWorker(name, (n) => (n < 4 ? new Error(`boom ${n}`) : undefined));
    await waitForState(redis, name, job.id, 'completed');

    const observed = await observedBackoffs(redis, name, job.id);
    expect(observed).toHaveLength(3);
    [300, 600, 1200].forEach((expected, i) => expectBackoff(observed[i], expected));
    const delayed = await delayedEvents(redis, name, job.id);
    delayed.forEach((event, i) =>
      expect(attempts[i + 1]!.processedOn).toBeGreaterThanOrEqual(event.due),
    );
    expect(await redis.hget(`bull:${name}:${job.id}`, 'atm')).toBe('4');
  });

  it('exponential with maxDelay: 1000, 2000, then capped at 2500', async () => {
    const name = uniqueQueueName('maxdelay');
    const redis = track(rawClient());
    const job = await addOne(name, {
      attempts: 4,
      backoff: { type: 'exponential', delay: 1000, maxDelay: 2500 },
    });
    failingWorker(name, (n) => (n < 4 ? new Error(`boom ${n}`) : undefined));
    await waitForState(redis, name, job.id, 'completed');

    const observed = await observedBackoffs(redis, name, job.id);
    expect(observed).toHaveLength(3);
    [1000, 2000, 2500].forEach((expected, i) => expectBackoff(observed[i], expected));
  });

  it('fixed with jitter: each delay is drawn from [delay·(1−jitter), delay]', async () => {
    const name = uniqueQueueName('jitter');
    const redis = track(rawClient());
    const job = await addOne(name, {
      attempts: 6,
      backoff: { type: 'fixed', delay: 400, jitter: 0.5 },
    });
    const { attempts } = failingWorker(name, (n) => new Error(`boom ${n}`));
    await waitForState(redis, name, job.id, 'failed');

    const delayed = await delayedEvents(redis, name, job.id);
    expect(delayed).toHaveLength(5);
    const chosen = delayed.map((event, i) => {
      // The chosen delay lies between what the clocks allow on either side.
      const atMost = event.due - attempts[i]!.failedAt!;
      const atLeast = event.due - event.at;
      expect(atLeast).toBeLessThanOrEqual(400 + CLOCK_SLACK);
      expect(atMost).toBeGreaterThanOrEqual(200);
      return atLeast;
    });
    // Not the plain delay every time: the jitter was applied (5 draws all >= 380: p = 1e-5).
    expect(chosen.some((delay) => delay < 380)).toBe(true);
  });

  it('exponential with jitter: each delay is drawn from [max·(1−jitter), max]', async () => {
    const name = uniqueQueueName('expjitter');
    const redis = track(rawClient());
    const job = await addOne(name, {
      attempts: 3,
      backoff: { type: 'exponential', delay: 400, jitter: 0.5 },
    });
    const { attempts } = failingWorker(name, (n) => new Error(`boom ${n}`));
    await waitForState(redis, name, job.id, 'failed');
    const delayed = await delayedEvents(redis, name, job.id);
    expect(delayed).toHaveLength(2);
    [400, 800].forEach((max, i) => {
      expect(delayed[i]!.due - delayed[i]!.at).toBeLessThanOrEqual(max + CLOCK_SLACK);
      expect(delayed[i]!.due - attempts[i]!.failedAt!).toBeGreaterThanOrEqual(max / 2);
    });
  });

  it('a backoff of 0 retries at once through wait (waiting prev=active), not delayed', async () => {
    const name = uniqueQueueName('zero');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3, backoff: 0 });
    failingWorker(name, (n) => (n < 3 ? new Error(`boom ${n}`) : undefined));
    await waitForState(redis, name, job.id, 'completed');
    const events = await jobEvents(redis, name, job.id);
    expect(events.filter((e) => e.fields.event === 'delayed')).toHaveLength(0);
    expect(
      events.filter((e) => e.fields.event === 'waiting' && e.fields.prev === 'active'),
    ).toHaveLength(2);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'atm')).toBe('3');
  });

  it('custom strategy: called with (attemptsMade, type, error, job); its delay is used', async () => {
    const name = uniqueQueueName('custom');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3, backoff: { type: 'linear', delay: 1 } });
    const calls: [number, string, string, string][] = [];
    failingWorker(name, (n) => (n < 3 ? new Error(`boom ${n}`) : undefined), {
      settings: {
        backoffStrategy: (attemptsMade, type, error, strategyJob) => {
          calls.push([attemptsMade, type, error.message, (strategyJob as Job).id]);
          return attemptsMade * 250;
        },
      },
    });
    await waitForState(redis, name, job.id, 'completed');
    expect(calls).toEqual([
      [1, 'linear', 'boom 1', job.id],
      [2, 'linear', 'boom 2', job.id],
    ]);
    const observed = await observedBackoffs(redis, name, job.id);
    expect(observed).toHaveLength(2);
    expectBackoff(observed[0], 250);
    expectBackoff(observed[1], 500);
  });

  it('custom strategy returning -1: no retry, the job fails for good', async () => {
    const name = uniqueQueueName('custom-stop');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 5, backoff: { type: 'never', delay: 100 } });
    const { attempts } = failingWorker(name, () => new Error('give up'), {
      settings: { backoffStrategy: () => -1 },
    });
    await waitForState(redis, name, job.id, 'failed');
    await sleep(300);
    expect(attempts).toHaveLength(1);
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.atm).toBe('1');
    expect(hash.failedReason).toBe('give up');
    expect(await delayedEvents(redis, name, job.id)).toHaveLength(0);
  });

  it('an unknown backoff type without a strategy fails the job, saying why', async () => {
    const name = uniqueQueueName('unknown');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3, backoff: { type: 'mystery', delay: 100 } });
    const { attempts } = failingWorker(name, () => new Error('boom'));
    await waitForState(redis, name, job.id, 'failed');
    expect(attempts).toHaveLength(1);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toMatch(
      /Unknown backoff strategy "mystery"/,
    );
  });
});

describe('errors that stop retries', () => {
  it('UnrecoverableError fails the job at once despite attempts left', async () => {
    const name = uniqueQueueName('unrecoverable');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 5, backoff: 100 });
    const { attempts } = failingWorker(name, () => new UnrecoverableError('fatal'));
    await waitForState(redis, name, job.id, 'failed');
    await sleep(300);
    expect(attempts).toHaveLength(1);
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.atm).toBe('1');
    expect(hash.failedReason).toBe('fatal');
    const events = (await jobEvents(redis, name, job.id)).map((e) => e.fields.event);
    expect(events).toContain('failed');
    expect(events).not.toContain('delayed');
    // attemptsMade (1) < attempts (5): not "exhausted", it was cut short.
    expect(events).not.toContain('retries-exhausted');
  });

  it('an error named UnrecoverableError (another realm or library) counts too', async () => {
    const name = uniqueQueueName('unrecoverable-name');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3 });
    const { attempts } = failingWorker(name, () => {
      const error = new Error('foreign fatal');
      error.name = 'UnrecoverableError';
      return error;
    });
    await waitForState(redis, name, job.id, 'failed');
    await sleep(200);
    expect(attempts).toHaveLength(1);
  });

  it('job.discard() stops retries', async () => {
    const name = uniqueQueueName('discard');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 5, backoff: 50 });
    const { attempts } = failingWorker(name, (n, running) => {
      running.discard();
      return new Error(`discarded ${n}`);
    });
    await waitForState(redis, name, job.id, 'failed');
    await sleep(300);
    expect(attempts).toHaveLength(1);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toBe('discarded 1');
  });

  it('a job carrying defa is failed with that reason without running the processor', async () => {
    const name = uniqueQueueName('defa');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3, backoff: 10 });
    await redis.hset(`bull:${name}:${job.id}`, 'defa', 'child bull:other:7 failed');
    const { attempts } = failingWorker(name, () => undefined);
    await waitForState(redis, name, job.id, 'failed');
    await sleep(300);
    expect(attempts).toHaveLength(0);
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.failedReason).toBe('child bull:other:7 failed');
    expect(hash.defa).toBeUndefined();
    expect(hash.atm).toBe('1');
    expect(await delayedEvents(redis, name, job.id)).toHaveLength(0);
    const failed = (await jobEvents(redis, name, job.id)).find((e) => e.fields.event === 'failed');
    expect(failed?.fields.failedReason).toBe('child bull:other:7 failed');
  });
});

describe('processor signals', () => {
  it('DelayedError after job.moveToDelayed: postponed, no attempt used, runs again when due', async () => {
    const name = uniqueQueueName('delayederr');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 1 });
    const runs: { at: number; processedOn?: number }[] = [];
    let dueAt = 0;
    let postponed!: () => void;
    const wasPostponed = new Promise<void>((resolve) => (postponed = resolve));
    const failedEvents: unknown[] = [];
    const errors: unknown[] = [];
    const worker = track(
      new Worker(
        name,
        async (running: Job, token?: string) => {
          runs.push({ at: Date.now(), processedOn: running.processedOn });
          if (runs.length === 1) {
            dueAt = Date.now() + 500;
            await running.moveToDelayed(dueAt, token);
            postponed();
            throw new DelayedError();
          }
          return 'second run';
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('failed', (failed) => failedEvents.push(failed));
    worker.on('error', (error) => errors.push(error));

    await wasPostponed;
    const key = `bull:${name}:${job.id}`;
    expect(await redis.zscore(`bull:${name}:delayed`, job.id)).not.toBeNull();
    expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([]);
    expect(await redis.exists(`${key}:lock`)).toBe(0);
    expect(await redis.hget(key, 'atm')).toBeNull();
    const delay = Number(await redis.hget(key, 'delay'));
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(500);

    await waitForState(redis, name, job.id, 'completed');
    expect(runs).toHaveLength(2);
    expect(runs[1]!.processedOn).toBeGreaterThanOrEqual(dueAt);
    const delayed = await delayedEvents(redis, name, job.id);
    expect(delayed.map((e) => e.due)).toEqual([dueAt]);
    const hash = await redis.hgetall(key);
    expect(hash.atm).toBe('1');
    expect(hash.ats).toBe('2');
    expect(hash.returnvalue).toBe('"second run"');
    expect(failedEvents).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('RateLimitError after queue.rateLimit: back at the front of wait, no attempt, worker waits out the TTL', async () => {
    const name = uniqueQueueName('ratelimit');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const a = await queue.add('A', {});
    const b = await queue.add('B', {});
    const runs: { name: string; at: number }[] = [];
    let limitSetAt = 0;
    let limited!: () => void;
    const wasLimited = new Promise<void>((resolve) => (limited = resolve));
    const errors: unknown[] = [];
    const worker = track(
      new Worker(
        name,
        async (job: Job) => {
          runs.push({ name: job.name, at: Date.now() });
          if (job.name === 'A' && runs.length === 1) {
            limitSetAt = Date.now();
            await queue.rateLimit(1500);
            limited();
            throw new RateLimitError();
          }
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('error', (error) => errors.push(error));

    await wasLimited;
    const pttl = await redis.pttl(`bull:${name}:limiter`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(1500);
    expect(await redis.get(`bull:${name}:limiter`)).toBe('9007199254740991');
    // A went back to the tail (the front of the line), ahead of B.
    await waitFor(async () => (await redis.llen(`bull:${name}:wait`)) === 2);
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([b.id, a.id]);
    expect(await redis.hget(`bull:${name}:${a.id}`, 'atm')).toBeNull();
    expect(await redis.exists(`bull:${name}:${a.id}:lock`)).toBe(0);

    await waitForState(redis, name, b.id, 'completed');
    expect(runs.map((r) => r.name)).toEqual(['A', 'A', 'B']);
    // The worker held off for the limit's TTL before taking A again.
    expect(runs[1]!.at).toBeGreaterThanOrEqual(limitSetAt + 1500 - 50);
    const hash = await redis.hgetall(`bull:${name}:${a.id}`);
    expect(hash.atm).toBe('1');
    expect(hash.ats).toBe('2');
    const events = await jobEvents(redis, name, a.id);
    expect(events.some((e) => e.fields.event === 'waiting' && e.fields.prev === 'active')).toBe(
      true,
    );
    expect(errors).toEqual([]);
  });

  it('RateLimitError on a prioritized job: back at the front of its priority (score p·2^32)', async () => {
    const name = uniqueQueueName('ratelimit-prio');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const first = await queue.add('first', {}, { priority: 3 });
    const other = await queue.add('other', {}, { priority: 3 });
    const runs: string[] = [];
    let limited!: () => void;
    const wasLimited = new Promise<void>((resolve) => (limited = resolve));
    track(
      new Worker(
        name,
        async (job: Job) => {
          runs.push(job.name);
          if (runs.length === 1) {
            await queue.rateLimit(1000);
            limited();
            throw new RateLimitError();
          }
        },
        { connection: redisOptions() },
      ),
    );
    await wasLimited;
    await waitFor(async () => (await redis.zscore(`bull:${name}:prioritized`, first.id)) !== null);
    expect(await redis.zscore(`bull:${name}:prioritized`, first.id)).toBe(String(3 * 2 ** 32));
    expect(await redis.zrange(`bull:${name}:prioritized`, 0, -1)).toEqual([first.id, other.id]);
    await waitForState(redis, name, other.id, 'completed');
    expect(runs).toEqual(['first', 'first', 'other']);
  });

  it('a WaitingError thrown without moving the job first is a failed attempt that says so', async () => {
    const name = uniqueQueueName('waitingerr');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 3 });
    const runs: number[] = [];
    const failedEvents: Error[] = [];
    const worker = track(
      new Worker(
        name,
        async () => {
          runs.push(Date.now());
          if (runs.length === 1) throw new WaitingError();
          return 'second run';
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('failed', (_failed, error) => failedEvents.push(error));
    // Retried at once (no backoff) rather than left active for the stalled checker.
    await waitForState(redis, name, job.id, 'completed');
    expect(runs).toHaveLength(2);
    expect(failedEvents.map((error) => error.name)).toEqual(['UnmovedJobError']);
    expect(failedEvents[0]!.message).toMatch(/WaitingError .*job\.moveToWait/);
    const key = `bull:${name}:${job.id}`;
    expect(await redis.hget(key, 'atm')).toBe('2');
    expect(await redis.hget(key, 'stc')).toBeNull();
  });

  it('WaitingError after job.moveToWait(token) (bullmq pattern): back in wait, runs again', async () => {
    const name = uniqueQueueName('movetowait');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 1 });
    const runs: number[] = [];
    const errors: unknown[] = [];
    const worker = track(
      new Worker(
        name,
        async (running: Job, token?: string) => {
          runs.push(Date.now());
          if (runs.length === 1) {
            // bullmq 6.7's Job#moveToWait(token): moveJobFromActiveToWait, then WaitingError.
            const withMove = running as Job & { moveToWait?: (token?: string) => Promise<number> };
            if (typeof withMove.moveToWait !== 'function') {
              throw new UnrecoverableError('Job#moveToWait is missing');
            }
            await withMove.moveToWait(token);
            throw new WaitingError();
          }
          return 'again';
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('error', (error) => errors.push(error));
    await waitFor(
      async () =>
        (await redis.zscore(`bull:${name}:completed`, job.id)) !== null ||
        (await redis.zscore(`bull:${name}:failed`, job.id)) !== null,
    );
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toBeNull();
    expect(runs).toHaveLength(2);
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.atm).toBe('1');
    expect(hash.ats).toBe('2');
    expect(errors).toEqual([]);
  });
});

describe('what a failure writes', () => {
  it('caps a failedReason over 8 KB, with the visible truncation marker', async () => {
    const name = uniqueQueueName('bigreason');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 1 });
    failingWorker(name, () => new Error('x'.repeat(20_000)));
    await waitForState(redis, name, job.id, 'failed');
    const reason = (await redis.hget(`bull:${name}:${job.id}`, 'failedReason'))!;
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(FAILED_REASON_MAX_BYTES);
    expect(Buffer.byteLength(reason)).toBeGreaterThan(FAILED_REASON_MAX_BYTES - 100);
    expect(reason.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(reason.startsWith('x'.repeat(1000))).toBe(true);
    const failed = (await jobEvents(redis, name, job.id)).find((e) => e.fields.event === 'failed');
    expect(failed?.fields.failedReason).toBe(reason);
  });

  it('cuts a multi-byte failedReason on a character boundary', async () => {
    const name = uniqueQueueName('utf8reason');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 1 });
    failingWorker(name, () => new Error('€'.repeat(6000)));
    await waitForState(redis, name, job.id, 'failed');
    const reason = (await redis.hget(`bull:${name}:${job.id}`, 'failedReason'))!;
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(FAILED_REASON_MAX_BYTES);
    expect(reason).not.toContain('\uFFFD');
    expect(reason.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(reason.slice(0, -TRUNCATION_MARKER.length)).toMatch(/^€+$/);
  });

  it('keeps a short failedReason untouched', async () => {
    const name = uniqueQueueName('smallreason');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 1 });
    failingWorker(name, () => new Error('short and sweet'));
    await waitForState(redis, name, job.id, 'failed');
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toBe('short and sweet');
  });

  it('bounds a huge, realistic stack trace to 8 KB of stored JSON', async () => {
    const name = uniqueQueueName('bigstack');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 1 });
    failingWorker(name, () => {
      const error = new Error('deep');
      error.stack =
        'Error: deep\n' +
        Array.from(
          { length: 600 },
          (_, i) => `    at frame${i} (/srv/app/src/module-${i}.ts:${i}:17)`,
        ).join('\n');
      return error;
    });
    await waitForState(redis, name, job.id, 'failed');
    const stored = (await redis.hget(`bull:${name}:${job.id}`, 'stacktrace'))!;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(STACKTRACE_MAX_BYTES);
    const traces = JSON.parse(stored) as string[];
    expect(traces).toHaveLength(1);
    expect(traces[0]!.startsWith('Error: deep\n    at frame0')).toBe(true);
  });

  it('keeps the newest traces within 8 KB across attempts', async () => {
    const name = uniqueQueueName('manystacks');
    const redis = track(rawClient());
    const job = await addOne(name, { attempts: 5 });
    failingWorker(name, (n) => {
      const error = new Error(`attempt ${n}`);
      error.stack = `Error: attempt ${n}\n` + `    at work (/srv/app.ts:1:1)\n`.repeat(100);
      return error;
    });
    await waitForState(redis, name, job.id, 'failed');
    const stored = (await redis.hget(`bull:${name}:${job.id}`, 'stacktrace'))!;
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(STACKTRACE_MAX_BYTES);
    const traces = JSON.parse(stored) as string[];
    expect(traces.length).toBeGreaterThanOrEqual(1);
    expect(traces.length).toBeLessThan(5);
    // Oldest dropped first: the last entry is the final attempt's, whole.
    expect(traces.at(-1)!.startsWith('Error: attempt 5\n')).toBe(true);
    expect(traces.at(-1)!.endsWith('at work (/srv/app.ts:1:1)\n')).toBe(true);
    // The first entry says how many earlier traces the cap dropped: with the kept ones, all five.
    const marker = /^\[oxmq\] (\d+) earlier stack traces? dropped/.exec(traces[0]!);
    expect(marker).not.toBeNull();
    expect(Number(marker![1]) + traces.length - 1).toBe(5);
    expect(traces[1]!.startsWith('Error: attempt')).toBe(true);
  });

  it('respects stackTraceLimit (2 keeps the newest two, 0 keeps none)', async () => {
    const name = uniqueQueueName('stacklimit');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const two = await queue.add('two', {}, { attempts: 4, stackTraceLimit: 2 });
    const none = await queue.add('none', {}, { attempts: 2, stackTraceLimit: 0 });
    const unlimited = await queue.add('all', {}, { attempts: 3 });
    failingWorker(name, (_n, job) => new Error(`${job.name} ${job.attemptsMade + 1}`));
    for (const job of [two, none, unlimited]) await waitForState(redis, name, job.id, 'failed');

    const traces = async (id: string) =>
      JSON.parse((await redis.hget(`bull:${name}:${id}`, 'stacktrace'))!) as string[];
    const kept = await traces(two.id);
    expect(kept).toHaveLength(2);
    expect(kept[0]).toMatch(/^Error: two 3\n/);
    expect(kept[1]).toMatch(/^Error: two 4\n/);
    expect(await traces(none.id)).toEqual([]);
    expect(await traces(unlimited.id)).toHaveLength(3);
  });
});
