import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  Job,
  JobNotFoundError,
  JobNotInStateError,
  Queue,
  QueueEvents,
  TimeoutError,
  TraceContext,
  Worker,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const TWO_32 = 2 ** 32;

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

function context(label: string) {
  const name = uniqueQueueName(label);
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  return { name, redis, queue };
}

async function streamEvents(redis: Redis, name: string): Promise<string[]> {
  return (await redis.xrange(`bull:${name}:events`, '-', '+')).map(([, f]) => f.join(' '));
}

async function finished(redis: Redis, name: string, id: string, set: 'completed' | 'failed') {
  await waitFor(async () => (await redis.zscore(`bull:${name}:${set}`, id)) !== null, 15_000);
}

describe('progress and logs', () => {
  it('updateProgress stores JSON, emits the stream event and the worker event', async () => {
    const { name, redis, queue } = context('progress');
    const events = track(new QueueEvents(name, { connection: redisOptions() }));
    await events.waitUntilReady();
    const streamProgress: unknown[] = [];
    events.on('progress', ({ jobId, data }) => streamProgress.push([jobId, data]));
    const local: unknown[] = [];
    const worker = track(
      new Worker(
        name,
        async (job: Job) => {
          await job.updateProgress(42);
          expect(job.progress).toBe(42);
          await job.updateProgress({ p: 50, step: 'half' });
          return 'done';
        },
        { connection: redisOptions() },
      ),
    );
    worker.on('progress', (job: Job, progress: unknown) => local.push([job.id, progress]));
    const job = await queue.add('p', {});
    await finished(redis, name, job.id, 'completed');

    expect(await redis.hget(`bull:${name}:${job.id}`, 'progress')).toBe('{"p":50,"step":"half"}');
    expect(local).toEqual([
      [job.id, 42],
      [job.id, { p: 50, step: 'half' }],
    ]);
    const stream = await streamEvents(redis, name);
    expect(stream).toContain(`event progress jobId ${job.id} data 42`);
    expect(stream).toContain(`event progress jobId ${job.id} data {"p":50,"step":"half"}`);
    await waitFor(() => streamProgress.length === 2);
    expect(streamProgress).toEqual([
      [job.id, 42],
      [job.id, { p: 50, step: 'half' }],
    ]);
    expect((await queue.getJob(job.id))!.progress).toEqual({ p: 50, step: 'half' });
  });

  it('updateProgress on a job that no longer exists throws JobNotFoundError', async () => {
    const { queue } = context('progress-missing');
    const job = await queue.add('gone', {});
    await job.remove();
    await expect(job.updateProgress(10)).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('log returns the line count, and keepLogs keeps only the newest lines', async () => {
    const { name, redis, queue } = context('logs');
    const trimmed = await queue.add('t', {}, { keepLogs: 2 });
    const full = await queue.add('f', {});
    expect(JSON.parse((await redis.hget(`bull:${name}:${trimmed.id}`, 'opts'))!)).toMatchObject({
      kl: 2,
    });
    expect(await trimmed.log('one')).toBe(1);
    expect(await trimmed.log('two')).toBe(2);
    expect(await trimmed.log('three')).toBe(2);
    expect(await redis.lrange(`bull:${name}:${trimmed.id}:logs`, 0, -1)).toEqual(['two', 'three']);
    expect(await queue.getJobLogs(trimmed.id)).toEqual({ logs: ['two', 'three'], count: 2 });
    expect(await queue.getJobLogs(trimmed.id, 0, -1, false)).toEqual({
      logs: ['three', 'two'],
      count: 2,
    });

    for (const line of ['a', 'b', 'c']) await full.log(line);
    expect(await full.log('d')).toBe(4);
    expect(await queue.getJobLogs(full.id, 1, 2)).toEqual({ logs: ['b', 'c'], count: 4 });
  });

  it('keepLogs read back from a fetched job still trims (opts decoded from kl)', async () => {
    const { name, redis, queue } = context('logs-worker');
    const job = await queue.add('w', {}, { keepLogs: 1 });
    track(
      new Worker(
        name,
        async (running: Job) => {
          await running.log('first');
          await running.log('second');
        },
        { connection: redisOptions() },
      ),
    );
    await finished(redis, name, job.id, 'completed');
    expect(await redis.lrange(`bull:${name}:${job.id}:logs`, 0, -1)).toEqual(['second']);
  });
});

describe('getState', () => {
  it('reports every state', async () => {
    const { name, redis, queue } = context('states');
    const waiting = await queue.add('w', {});
    const prioritized = await queue.add('p', {}, { priority: 4 });
    const delayed = await queue.add('d', {}, { delay: 60_000 });
    // A parent waiting for children, placed as a flow would place it.
    const parent = await queue.add('parent', {}, { jobId: 'parent-x' });
    await redis.lrem(`bull:${name}:wait`, 0, parent.id);
    await redis.zadd(`bull:${name}:waiting-children`, parent.timestamp, parent.id);

    expect(await waiting.getState()).toBe('waiting');
    expect(await prioritized.getState()).toBe('prioritized');
    expect(await delayed.getState()).toBe('delayed');
    expect(await parent.getState()).toBe('waiting-children');
    expect(await queue.getJobState('no-such-job')).toBe('unknown');
    expect(await waiting.isWaiting()).toBe(true);
    expect(await prioritized.isPrioritized()).toBe(true);
    expect(await delayed.isDelayed()).toBe(true);
    expect(await parent.isWaitingChildren()).toBe(true);

    const running = deferred<string>();
    const release = deferred();
    track(
      new Worker(
        name,
        async (job: Job) => {
          if (job.name === 'boom') throw new Error('boom');
          running.resolve(await job.getState());
          if (job.name === 'w') await release.promise;
          return 'ok';
        },
        { connection: redisOptions() },
      ),
    );
    expect(await running.promise).toBe('active');
    expect(await waiting.isActive()).toBe(true);
    release.resolve();
    await finished(redis, name, waiting.id, 'completed');
    expect(await waiting.getState()).toBe('completed');
    expect(await waiting.isCompleted()).toBe(true);

    const failing = await queue.add('boom', {});
    await finished(redis, name, failing.id, 'failed');
    expect(await failing.getState()).toBe('failed');
    expect(await failing.isFailed()).toBe(true);
  });
});

describe('moving jobs', () => {
  it('retry() puts a failed job back in wait, clearing its outcome, and it runs again', async () => {
    const { name, redis, queue } = context('retry');
    let runs = 0;
    track(
      new Worker(
        name,
        async () => {
          runs += 1;
          if (runs === 1) throw new Error('first run fails');
          return 'second run works';
        },
        { connection: redisOptions() },
      ),
    );
    const job = await queue.add('r', {});
    await finished(redis, name, job.id, 'failed');
    const failed = (await queue.getJob(job.id))!;
    expect(failed.failedReason).toBe('first run fails');

    await failed.retry();
    await finished(redis, name, job.id, 'completed');
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.failedReason).toBeUndefined();
    expect(hash.returnvalue).toBe('"second run works"');
    expect(hash.atm).toBe('2');
    expect(await redis.zscore(`bull:${name}:failed`, job.id)).toBeNull();
    expect(await streamEvents(redis, name)).toContain(`event waiting jobId ${job.id} prev failed`);
  });

  it('retry() leaves state untouched when the job is not failed, and refuses', async () => {
    const { queue } = context('retry-wrong');
    const job = await queue.add('r', {});
    await expect(job.retry()).rejects.toBeInstanceOf(JobNotInStateError);
    expect(await job.getState()).toBe('waiting');
  });

  it("retry('completed') re-runs a completed job; resetAttemptsMade clears atm", async () => {
    const { name, redis, queue } = context('retry-completed');
    let runs = 0;
    const processor = async () => `run ${++runs}`;
    const first = new Worker(name, processor, { connection: redisOptions() });
    track(first);
    const job = await queue.add('c', {});
    await finished(redis, name, job.id, 'completed');
    await first.close();
    const completed = (await queue.getJob(job.id))!;
    await expect(completed.retry('failed')).rejects.toBeInstanceOf(JobNotInStateError);

    await completed.retry('completed', { resetAttemptsMade: true });
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.returnvalue).toBeUndefined();
    expect(hash.finishedOn).toBeUndefined();
    expect(hash.processedOn).toBeUndefined();
    expect(hash.atm).toBeUndefined();
    expect(await redis.zscore(`bull:${name}:completed`, job.id)).toBeNull();
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([job.id]);
    expect(await streamEvents(redis, name)).toContain(
      `event waiting jobId ${job.id} prev completed`,
    );

    track(new Worker(name, processor, { connection: redisOptions() }));
    await waitFor(
      async () => (await redis.hget(`bull:${name}:${job.id}`, 'returnvalue')) === '"run 2"',
    );
    expect(await redis.hget(`bull:${name}:${job.id}`, 'atm')).toBe('1');
  });

  it('promote() makes a delayed job wait now', async () => {
    const { name, redis, queue } = context('promote');
    const job = await queue.add('d', {}, { delay: 60_000 });
    const prioritized = await queue.add('dp', {}, { delay: 60_000, priority: 3 });
    await job.promote();
    await prioritized.promote();
    expect(await redis.zcard(`bull:${name}:delayed`)).toBe(0);
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([job.id]);
    expect(await redis.zscore(`bull:${name}:prioritized`, prioritized.id)).not.toBeNull();
    expect(await redis.hget(`bull:${name}:${job.id}`, 'delay')).toBe('0');
    expect(job.delay).toBe(0);
    expect(await streamEvents(redis, name)).toContain(`event waiting jobId ${job.id} prev delayed`);
    await expect(job.promote()).rejects.toBeInstanceOf(JobNotInStateError);

    const ran: string[] = [];
    track(new Worker(name, async (j: Job) => void ran.push(j.id), { connection: redisOptions() }));
    await waitFor(() => ran.length === 2);
    expect(ran).toEqual([job.id, prioritized.id]);
  });

  it('remove() deletes a job with its keys; a locked job is refused and kept', async () => {
    const { name, redis, queue } = context('remove');
    const job = await queue.add('gone', {});
    await job.log('a line');
    await job.remove();
    expect(await redis.exists(`bull:${name}:${job.id}`, `bull:${name}:${job.id}:logs`)).toBe(0);
    expect(await redis.llen(`bull:${name}:wait`)).toBe(0);
    expect(await job.getState()).toBe('unknown');
    expect(await streamEvents(redis, name)).toContain(`event removed jobId ${job.id} prev wait`);

    const started = deferred();
    const release = deferred();
    track(
      new Worker(
        name,
        async () => {
          started.resolve();
          await release.promise;
        },
        { connection: redisOptions() },
      ),
    );
    const locked = await queue.add('locked', {});
    await started.promise;
    await expect(locked.remove()).rejects.toThrow();
    expect(await queue.remove(locked.id)).toBe(0);
    expect(await locked.getState()).toBe('active');
    release.resolve();
    await finished(redis, name, locked.id, 'completed');
  });

  it('changePriority re-queues a waiting job under its new priority', async () => {
    const { name, redis, queue } = context('chprio');
    const a = await queue.add('a', {});
    const b = await queue.add('b', {}, { priority: 2 });
    const c = await queue.add('c', {}, { priority: 2 });

    await a.changePriority({ priority: 5 });
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([]);
    expect(await redis.zscore(`bull:${name}:prioritized`, a.id)).toBe(String(5 * TWO_32 + 3));
    expect(await redis.hget(`bull:${name}:${a.id}`, 'priority')).toBe('5');
    expect(a.priority).toBe(5);

    // lifo: ahead of every job with that priority (counter 0).
    await c.changePriority({ priority: 2, lifo: true });
    expect(await redis.zscore(`bull:${name}:prioritized`, c.id)).toBe(String(2 * TWO_32));

    await b.changePriority({ priority: 0 });
    expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([b.id]);
    expect(await redis.zscore(`bull:${name}:prioritized`, b.id)).toBeNull();

    const ran: string[] = [];
    track(
      new Worker(name, async (j: Job) => void ran.push(j.name), { connection: redisOptions() }),
    );
    await waitFor(() => ran.length === 3);
    expect(ran).toEqual(['b', 'c', 'a']);
  });

  it('changeDelay moves the due time of a delayed job; other states are refused', async () => {
    const { name, redis, queue } = context('chdelay');
    const job = await queue.add('d', {}, { delay: 60_000 });
    const before = Date.now();
    await job.changeDelay(5_000);
    const after = Date.now();
    const score = Number(await redis.zscore(`bull:${name}:delayed`, job.id));
    expect(score % 4096).toBe(0);
    expect(score / 4096).toBeGreaterThanOrEqual(before + 5_000);
    expect(score / 4096).toBeLessThanOrEqual(after + 5_000);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'delay')).toBe('5000');
    expect(job.delay).toBe(5_000);
    expect(await streamEvents(redis, name)).toContain(
      `event delayed jobId ${job.id} delay ${score / 4096}`,
    );

    const waiting = await queue.add('w', {});
    await expect(waiting.changeDelay(1_000)).rejects.toBeInstanceOf(JobNotInStateError);
    expect(await waiting.getState()).toBe('waiting');
  });

  it('updateData replaces the stored data; a removed job throws JobNotFoundError', async () => {
    const { name, redis, queue } = context('update');
    const job = await queue.add('u', { v: 1 });
    await job.updateData({ v: 2, nested: { ok: true } });
    expect(await redis.hget(`bull:${name}:${job.id}`, 'data')).toBe('{"v":2,"nested":{"ok":true}}');
    expect(job.data).toEqual({ v: 2, nested: { ok: true } });
    expect((await queue.getJob(job.id))!.data).toEqual({ v: 2, nested: { ok: true } });
    await job.remove();
    await expect(job.updateData({ v: 3 })).rejects.toBeInstanceOf(JobNotFoundError);
    expect(await redis.exists(`bull:${name}:${job.id}`)).toBe(0);
  });
});

describe('waitUntilFinished', () => {
  it('resolves with the return value, rejects with the failure reason', async () => {
    const { name, queue } = context('wuf');
    const events = track(new QueueEvents(name, { connection: redisOptions() }));
    const ok = await queue.add('ok', { n: 21 });
    const bad = await queue.add('bad', {});
    const okResult = ok.waitUntilFinished(events);
    const badResult = bad.waitUntilFinished(events);
    badResult.catch(() => undefined);
    track(
      new Worker(
        name,
        async (job: Job<{ n?: number }>) => {
          if (job.name === 'bad') throw new Error('it broke');
          return { doubled: (job.data.n ?? 0) * 2 };
        },
        { connection: redisOptions() },
      ),
    );
    await expect(okResult).resolves.toEqual({ doubled: 42 });
    await expect(badResult).rejects.toThrow('it broke');
  });

  it('settles at once for a job that already finished', async () => {
    const { name, redis, queue } = context('wuf-done');
    track(new Worker(name, async () => 'early', { connection: redisOptions() }));
    const job = await queue.add('e', {});
    await finished(redis, name, job.id, 'completed');
    const events = track(new QueueEvents(name, { connection: redisOptions() }));
    await expect(job.waitUntilFinished(events, 5_000)).resolves.toBe('early');
  });

  it('rejects with TimeoutError after ttl when nothing processes the job', async () => {
    const { name, queue } = context('wuf-timeout');
    const events = track(new QueueEvents(name, { connection: redisOptions() }));
    const job = await queue.add('never', {});
    const error = await job.waitUntilFinished(events, 300).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).code).toBe('TIMEOUT');
  });
});

describe('trace context', () => {
  it('is stored as traceparent/tracestate hash fields and read back by getTraceContext', async () => {
    const { name, redis, queue } = context('trace');
    const parent = TraceContext.create();
    const traceparent = parent.traceparent;
    const tracestate = 'oxmq=1,vendor=abc';
    const job = await queue.add('t', {}, { traceparent, tracestate });
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.traceparent).toBe(traceparent);
    expect(hash.tracestate).toBe(tracestate);
    // Not duplicated into opts, where bullmq would carry it as an unknown option.
    expect(JSON.parse(hash.opts!)).not.toHaveProperty('traceparent');
    expect(JSON.parse(hash.opts!)).not.toHaveProperty('tracestate');
    expect(job.getTraceContext()?.traceparent).toBe(traceparent);

    const seen = deferred<TraceContext | undefined>();
    track(
      new Worker(name, async (running: Job) => seen.resolve(running.getTraceContext()), {
        connection: redisOptions(),
      }),
    );
    const carried = await seen.promise;
    expect(carried?.traceId).toBe(parent.traceId);
    expect(carried?.spanId).toBe(parent.spanId);
    expect(carried?.sampled).toBe(true);
    expect(carried?.tracestate).toBe(tracestate);
    const fetched = await queue.getJob(job.id);
    expect(fetched?.getTraceContext()?.traceparent).toBe(traceparent);
  });

  it('a job without one has no trace context and no trace fields', async () => {
    const { name, redis, queue } = context('notrace');
    const job = await queue.add('n', {});
    expect(job.getTraceContext()).toBeUndefined();
    expect(await redis.hexists(`bull:${name}:${job.id}`, 'traceparent')).toBe(0);
    expect((await queue.getJob(job.id))?.getTraceContext()).toBeUndefined();
  });
});

describe('Queue.getJobs', () => {
  it('lists waiting jobs oldest first with asc, newest first without, and pages', async () => {
    const { queue } = context('getjobs');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await queue.add('g', { i })).id);
    expect((await queue.getJobs(['waiting'], 0, -1, true)).map((j) => j.id)).toEqual(ids);
    expect((await queue.getJobs(['waiting'], 0, -1, false)).map((j) => j.id)).toEqual(
      [...ids].reverse(),
    );
    expect((await queue.getJobs(['waiting'], 1, 2, true)).map((j) => j.id)).toEqual(
      ids.slice(1, 3),
    );
    expect((await queue.getJobs('wait', 0, 0, false)).map((j) => j.id)).toEqual([ids[4]]);
    const first = (await queue.getJobs(['waiting'], 0, 0, true))[0]!;
    expect(first.data).toEqual({ i: 0 });
    expect(first.name).toBe('g');
  });

  it('lists finished jobs by finish time and concatenates states in the order given', async () => {
    const { name, redis, queue } = context('getjobs-mixed');
    track(
      new Worker(
        name,
        async (job: Job) => {
          if (job.name === 'fail') throw new Error('x');
          await sleep(5);
        },
        { connection: redisOptions() },
      ),
    );
    const done: string[] = [];
    for (let i = 0; i < 3; i++) {
      const job = await queue.add('ok', { i });
      await finished(redis, name, job.id, 'completed');
      done.push(job.id);
    }
    const failed = await queue.add('fail', {});
    await finished(redis, name, failed.id, 'failed');
    const delayed = await queue.add('later', {}, { delay: 60_000 });

    expect((await queue.getJobs(['completed'], 0, -1, true)).map((j) => j.id)).toEqual(done);
    expect((await queue.getJobs(['completed'], 0, -1, false)).map((j) => j.id)).toEqual(
      [...done].reverse(),
    );
    expect(
      (await queue.getJobs(['failed', 'delayed', 'completed'], 0, -1, true)).map((j) => j.id),
    ).toEqual([failed.id, delayed.id, ...done]);
    // Ids whose hash vanished are skipped.
    await redis.del(`bull:${name}:${done[1]}`);
    expect((await queue.getJobs(['completed'], 0, -1, true)).map((j) => j.id)).toEqual([
      done[0],
      done[2],
    ]);
  });
});
