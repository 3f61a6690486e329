/**
 * Errors that move the job: bullmq's protocol (move first, then throw), a DelayedError that
 * carries its move, and signal errors thrown without a move (a clear failed attempt).
 */
import type { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import * as bullmq from 'bullmq';
import { describe, expect, it } from 'vitest';
import * as oxmq from 'oxmq';
import {
  DelayedError,
  DelayedException,
  Queue,
  RateLimitError,
  UnmovedJobError,
  ValidationError,
  WaitingChildrenError,
  WaitingChildrenException,
  WaitingError,
  WaitingException,
  Worker,
  type Job,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

function failedErrors(worker: EventEmitter): Error[] {
  const errors: Error[] = [];
  worker.on('failed', (_job, error) => errors.push(error));
  return errors;
}

describe('bullmq error names', () => {
  it('exports the signal messages and error classes under bullmq 6.7.0 names', () => {
    for (const name of [
      'UNRECOVERABLE_ERROR',
      'DELAYED_ERROR',
      'WAITING_ERROR',
      'WAITING_CHILDREN_ERROR',
      'RATE_LIMIT_ERROR',
      'CONNECTION_CLOSED_ERROR_MSG',
    ] as const) {
      expect(oxmq[name]).toBe(bullmq[name]);
    }
    for (const name of [
      'UnrecoverableError',
      'DelayedError',
      'WaitingError',
      'WaitingChildrenError',
      'RateLimitError',
      'ConnectionClosedError',
    ] as const) {
      const ours = new oxmq[name]();
      const theirs = new bullmq[name]();
      expect([ours.name, ours.message]).toEqual([theirs.name, theirs.message]);
    }
  });
});

describe('DelayedError', () => {
  it('a number is the delay in ms, not the message', () => {
    const before = Date.now();
    const error = new DelayedError(10_000);
    expect(error.message).toBe('bullmq:movedToDelayed');
    expect(error.until).toBeGreaterThanOrEqual(before + 10_000);
    expect(new DelayedError({ until: 123, message: 'later' })).toMatchObject({
      until: 123,
      message: 'later',
    });
    expect(new DelayedError('custom').until).toBeUndefined();
    expect(() => new DelayedError({})).toThrow(ValidationError);
    expect(() => new DelayedError({ delay: 1, until: 2 })).toThrow(ValidationError);
    expect(() => new DelayedError(-5)).toThrow(ValidationError);
    expect(() => new DelayedError(Number.NaN)).toThrow(ValidationError);
  });

  it('the Exception aliases are the same classes', () => {
    expect(DelayedException).toBe(DelayedError);
    expect(WaitingException).toBe(WaitingError);
    expect(WaitingChildrenException).toBe(WaitingChildrenError);
    expect(new WaitingException()).toBeInstanceOf(WaitingError);
  });

  it.each([
    ['{ delay }', () => new DelayedError({ delay: 60_000 })],
    ['a number', () => new DelayedError(60_000)],
    ['{ until }', () => new DelayedError({ until: Date.now() + 60_000 })],
  ])(
    'thrown with %s, it moves the job to delayed without using an attempt',
    async (_label, make) => {
      const name = uniqueQueueName('delayed-carry');
      const queue = track(new Queue(name, connection()));
      const redis = track(rawClient());
      const job = await queue.add('x', {}, { attempts: 1 });
      const before = Date.now();
      const worker = track(
        new Worker(
          name,
          async () => {
            throw make();
          },
          connection(),
        ),
      );
      const failures = failedErrors(worker);
      await waitFor(async () => (await queue.getJobState(job.id)) === 'delayed');
      const score = Number(await redis.zscore(`bull:${name}:delayed`, job.id));
      // bullmq's delayed score: due time · 4096 (+ a sequence in the low bits).
      expect(Math.floor(score / 4096)).toBeGreaterThanOrEqual(before + 60_000);
      expect(Math.floor(score / 4096)).toBeLessThan(Date.now() + 60_001);
      expect(await redis.hget(`bull:${name}:${job.id}`, 'atm')).toBeNull();
      expect(await redis.exists(`bull:${name}:${job.id}:lock`)).toBe(0);
      expect(failures).toEqual([]);
    },
  );

  it.each([
    ['DelayedError', () => new DelayedError(), /job\.moveToDelayed.*DelayedError\(\{ delay \}\)/],
    ['WaitingError', () => new WaitingError(), /job\.moveToWait/],
    ['WaitingChildrenError', () => new WaitingChildrenError(), /job\.moveToWaitingChildren/],
  ])(
    'a bare %s (no move first) fails the job, never strands it in active',
    async (_n, make, hint) => {
      const name = uniqueQueueName('bare-signal');
      const queue = track(new Queue(name, connection()));
      const job = await queue.add('x', {});
      const worker = track(
        new Worker(
          name,
          async () => {
            throw make();
          },
          connection(),
        ),
      );
      const failures = failedErrors(worker);
      // The event follows the write to Redis: wait for the event.
      await waitFor(() => failures.length === 1);
      expect(await queue.getJobState(job.id)).toBe('failed');
      expect(failures[0]).toBeInstanceOf(UnmovedJobError);
      expect(failures[0]!.message).toMatch(hint);
      const stored = await queue.getJob(job.id);
      expect(stored?.failedReason).toMatch(hint);
    },
  );

  it('a sandboxed processor can throw a DelayedError carrying its move', async () => {
    const name = uniqueQueueName('delayed-sandbox');
    const queue = track(new Queue(name, connection()));
    const job = await queue.add('x', {});
    const file = fileURLToPath(new URL('../helpers/sandbox-processors/delays.ts', import.meta.url));
    const worker = track(new Worker(name, file, connection()));
    const failures = failedErrors(worker);
    // The child process loads the TypeScript processor first: on a loaded machine that alone
    // can take seconds, so the wait for the outcome gets most of the test's time.
    await waitFor(async () => (await queue.getJobState(job.id)) === 'delayed', 25_000);
    expect(failures).toEqual([]);
  });

  it('after job.moveToDelayed, a bare DelayedError is taken at its word (bullmq protocol)', async () => {
    const name = uniqueQueueName('delayed-protocol');
    const queue = track(new Queue(name, connection()));
    const job = await queue.add('x', {});
    const worker = track(
      new Worker(
        name,
        async (running: Job, token?: string) => {
          await running.moveToDelayed(Date.now() + 60_000, token);
          throw new DelayedError();
        },
        connection(),
      ),
    );
    const failures = failedErrors(worker);
    // The child process loads the TypeScript processor first: on a loaded machine that alone
    // can take seconds, so the wait for the outcome gets most of the test's time.
    await waitFor(async () => (await queue.getJobState(job.id)) === 'delayed', 25_000);
    expect(failures).toEqual([]);
  });
});

describe('manual rate limit', () => {
  it('worker.rateLimit + Worker.RateLimitError(): back to wait without an attempt, then runs', async () => {
    const name = uniqueQueueName('worker-ratelimit');
    const queue = track(new Queue(name, connection()));
    const redis = track(rawClient());
    const job = await queue.add('x', {});
    expect(Worker.RateLimitError()).toBeInstanceOf(RateLimitError);
    const runs: number[] = [];
    let limiterValue: string | null = null;
    const worker: Worker = track(
      new Worker(
        name,
        async () => {
          runs.push(Date.now());
          if (runs.length === 1) {
            await worker.rateLimit(300);
            limiterValue = await redis.get(`bull:${name}:limiter`);
            throw Worker.RateLimitError();
          }
          return 'ok';
        },
        connection(),
      ),
    );
    await waitFor(async () => (await queue.getJobState(job.id)) === 'completed');
    expect(limiterValue).toBe('9007199254740991');
    expect(runs).toHaveLength(2);
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(250);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'atm')).toBe('1');
    await expect(worker.rateLimit(-1)).rejects.toBeInstanceOf(ValidationError);
  });
});
