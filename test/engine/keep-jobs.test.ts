import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job, type JobsOptions, type KeepJobs } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

interface Setup {
  name: string;
  redis: Redis;
  queue: Queue;
  /** Ids whose final outcome (completed or failed) the worker reported, in order. */
  finished: string[];
}

/**
 * A queue plus a concurrency-1 worker that logs a line for every job, then completes it or,
 * for jobs named "fail", fails it. Jobs are added one at a time by `run` so finish order is known.
 */
function setup(workerOpts: { removeOnComplete?: KeepJobs; removeOnFail?: KeepJobs } = {}): Setup & {
  run: (jobName: string, opts?: JobsOptions) => Promise<Job>;
} {
  const name = uniqueQueueName('keep');
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const finished: string[] = [];
  const worker = track(
    new Worker(
      name,
      async (job: Job) => {
        await job.log(`log of ${job.id}`);
        if (job.name === 'fail') throw new Error(`failing ${job.id}`);
        return { id: job.id };
      },
      { connection: redisOptions(), ...workerOpts },
    ),
  );
  worker.on('completed', (job: Job) => finished.push(job.id));
  worker.on('failed', (job: Job | undefined) => {
    if (job) finished.push(job.id);
  });
  const run = async (jobName: string, opts: JobsOptions = {}) => {
    const job = await queue.add(jobName, {}, opts);
    await waitFor(() => finished.includes(job.id));
    return job;
  };
  return { name, redis, queue, finished, run };
}

async function exists(
  redis: Redis,
  name: string,
  id: string,
): Promise<{ hash: boolean; logs: boolean }> {
  return {
    hash: (await redis.exists(`bull:${name}:${id}`)) === 1,
    logs: (await redis.exists(`bull:${name}:${id}:logs`)) === 1,
  };
}

describe('removeOnComplete', () => {
  it('true deletes the job and its logs, but still announces completed with the value', async () => {
    const { name, redis, run } = setup();
    const job = await run('ok', { removeOnComplete: true });
    expect(await exists(redis, name, job.id)).toEqual({ hash: false, logs: false });
    expect(await redis.zscore(`bull:${name}:completed`, job.id)).toBeNull();
    const events = (await redis.xrange(`bull:${name}:events`, '-', '+')).map(([, f]) => f);
    expect(events).toContainEqual([
      'event',
      'completed',
      'jobId',
      job.id,
      'returnvalue',
      JSON.stringify({ id: job.id }),
      'prev',
      'active',
    ]);
  });

  it('false and unset keep every job', async () => {
    const { name, redis, run } = setup();
    const kept = [await run('ok'), await run('ok', { removeOnComplete: false }), await run('ok')];
    for (const job of kept) {
      expect(await exists(redis, name, job.id)).toEqual({ hash: true, logs: true });
    }
    expect(await redis.zcard(`bull:${name}:completed`)).toBe(3);
  });

  it('a number keeps only the newest n; trimmed jobs lose their hash and logs', async () => {
    const { name, redis, run } = setup();
    const jobs: Job[] = [];
    for (let i = 0; i < 5; i++) jobs.push(await run('ok', { removeOnComplete: 2 }));
    const ids = jobs.map((j) => j.id);
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual(ids.slice(3));
    for (const id of ids.slice(0, 3)) {
      expect(await exists(redis, name, id)).toEqual({ hash: false, logs: false });
    }
    for (const id of ids.slice(3)) {
      expect(await exists(redis, name, id)).toEqual({ hash: true, logs: true });
    }
  });

  it('0 deletes the job like true', async () => {
    const { name, redis, run } = setup();
    const job = await run('ok', { removeOnComplete: 0 });
    expect(await exists(redis, name, job.id)).toEqual({ hash: false, logs: false });
  });

  it('{ count } keeps the newest count', async () => {
    const { name, redis, run } = setup();
    const jobs: Job[] = [];
    for (let i = 0; i < 4; i++) jobs.push(await run('ok', { removeOnComplete: { count: 3 } }));
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual(
      jobs.slice(1).map((j) => j.id),
    );
    expect(await exists(redis, name, jobs[0]!.id)).toEqual({ hash: false, logs: false });
  });

  it('{ age } (seconds) removes jobs finished longer ago, when the next job finishes', async () => {
    const { name, redis, run } = setup();
    const old1 = await run('ok', { removeOnComplete: { age: 1 } });
    const old2 = await run('ok', { removeOnComplete: { age: 1 } });
    await sleep(1300);
    const fresh = await run('ok', { removeOnComplete: { age: 1 } });
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual([fresh.id]);
    for (const job of [old1, old2]) {
      expect(await exists(redis, name, job.id)).toEqual({ hash: false, logs: false });
    }
    expect(await exists(redis, name, fresh.id)).toEqual({ hash: true, logs: true });
  });

  it('{ age } is not milliseconds: jobs younger than age seconds stay', async () => {
    const { name, redis, run } = setup();
    const first = await run('ok', { removeOnComplete: { age: 60 } });
    await sleep(200);
    const second = await run('ok', { removeOnComplete: { age: 60 } });
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual([first.id, second.id]);
  });

  it('{ age, limit } removes at most limit old jobs per finishing job', async () => {
    const { name, redis, run } = setup();
    const old: Job[] = [];
    for (let i = 0; i < 3; i++) old.push(await run('ok'));
    await sleep(1300);
    const next = await run('ok', { removeOnComplete: { age: 1, limit: 2 } });
    const left = await redis.zrange(`bull:${name}:completed`, 0, -1);
    expect(left).toEqual([old[2]!.id, next.id]);
    expect(await exists(redis, name, old[0]!.id)).toEqual({ hash: false, logs: false });
    expect(await exists(redis, name, old[2]!.id)).toEqual({ hash: true, logs: true });
  });

  it('{ age, count } applies both', async () => {
    const { name, redis, run } = setup();
    const old = await run('ok');
    await sleep(1300);
    const recent: Job[] = [];
    for (let i = 0; i < 3; i++)
      recent.push(await run('ok', { removeOnComplete: { age: 1, count: 2 } }));
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual(
      recent.slice(1).map((j) => j.id),
    );
    expect(await exists(redis, name, old.id)).toEqual({ hash: false, logs: false });
  });
});

describe('removeOnFail', () => {
  it('true deletes a failed job and its logs; failed is still announced', async () => {
    const { name, redis, run } = setup();
    const job = await run('fail', { removeOnFail: true });
    expect(await exists(redis, name, job.id)).toEqual({ hash: false, logs: false });
    expect(await redis.zscore(`bull:${name}:failed`, job.id)).toBeNull();
    const events = (await redis.xrange(`bull:${name}:events`, '-', '+')).map(([, f]) =>
      f.join(' '),
    );
    expect(events).toContain(
      `event failed jobId ${job.id} failedReason failing ${job.id} prev active`,
    );
  });

  it('a number keeps the newest n failed jobs and leaves completed ones alone', async () => {
    const { name, redis, run } = setup();
    const done = await run('ok', { removeOnComplete: false });
    const failed: Job[] = [];
    for (let i = 0; i < 3; i++) failed.push(await run('fail', { removeOnFail: 1 }));
    expect(await redis.zrange(`bull:${name}:failed`, 0, -1)).toEqual([failed[2]!.id]);
    for (const job of failed.slice(0, 2)) {
      expect(await exists(redis, name, job.id)).toEqual({ hash: false, logs: false });
    }
    expect(await exists(redis, name, done.id)).toEqual({ hash: true, logs: true });
  });

  it('removeOnComplete does not apply to failures', async () => {
    const { name, redis, run } = setup();
    const job = await run('fail', { removeOnComplete: true });
    expect(await redis.zscore(`bull:${name}:failed`, job.id)).not.toBeNull();
    expect(await exists(redis, name, job.id)).toEqual({ hash: true, logs: true });
  });

  it('retries are not trimmed: only the final failure counts', async () => {
    const { name, redis, run } = setup();
    const job = await run('fail', { removeOnFail: true, attempts: 3 });
    // The worker reports every attempt's failure; wait for the last one.
    await waitFor(async () => (await redis.exists(`bull:${name}:${job.id}`)) === 0, 10_000);
    const events = (await redis.xrange(`bull:${name}:events`, '-', '+')).map(([, f]) =>
      f.join(' '),
    );
    expect(events.filter((e) => e.startsWith(`event failed jobId ${job.id} `))).toHaveLength(1);
    expect(events.filter((e) => e === `event waiting jobId ${job.id} prev active`)).toHaveLength(2);
  });
});

describe('worker-level defaults', () => {
  it('apply to jobs without their own option', async () => {
    const { name, redis, run } = setup({ removeOnComplete: 1, removeOnFail: true });
    const a = await run('ok');
    const b = await run('ok');
    const f = await run('fail');
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual([b.id]);
    expect(await exists(redis, name, a.id)).toEqual({ hash: false, logs: false });
    expect(await exists(redis, name, f.id)).toEqual({ hash: false, logs: false });
  });

  it('are overridden by the job option, false included', async () => {
    const { name, redis, run } = setup({ removeOnComplete: true, removeOnFail: true });
    const keepAll = await run('ok', { removeOnComplete: false });
    const keepFailed = await run('fail', { removeOnFail: false });
    const removed = await run('ok');
    expect(await exists(redis, name, keepAll.id)).toEqual({ hash: true, logs: true });
    expect(await exists(redis, name, keepFailed.id)).toEqual({ hash: true, logs: true });
    expect(await exists(redis, name, removed.id)).toEqual({ hash: false, logs: false });
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual([keepAll.id]);
  });

  it('a job number overrides the worker number', async () => {
    const { name, redis, run } = setup({ removeOnComplete: 1 });
    const jobs: Job[] = [];
    for (let i = 0; i < 3; i++) jobs.push(await run('ok', { removeOnComplete: 3 }));
    expect(await redis.zcard(`bull:${name}:completed`)).toBe(3);
    const fourth = await run('ok');
    // The worker default (1) applies to the job finishing now and trims the older ones.
    expect(await redis.zrange(`bull:${name}:completed`, 0, -1)).toEqual([fourth.id]);
    for (const job of jobs)
      expect(await exists(redis, name, job.id)).toEqual({ hash: false, logs: false });
  });

  it('Queue defaultJobOptions are stored with the job and honoured', async () => {
    const name = uniqueQueueName('keepdefaults');
    const redis = track(rawClient());
    const queue = track(
      new Queue(name, {
        connection: redisOptions(),
        defaultJobOptions: { removeOnComplete: true },
      }),
    );
    const job = await queue.add('d', {});
    expect(JSON.parse((await redis.hget(`bull:${name}:${job.id}`, 'opts'))!)).toMatchObject({
      removeOnComplete: true,
    });
    const done: string[] = [];
    const worker = track(new Worker(name, async () => 'x', { connection: redisOptions() }));
    worker.on('completed', (j: Job) => done.push(j.id));
    await waitFor(() => done.includes(job.id));
    expect(await redis.exists(`bull:${name}:${job.id}`)).toBe(0);
  });
});
