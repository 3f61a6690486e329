/**
 * The batch fetch's common case takes its jobs from the tail of the wait list in one run (one
 * LRANGE, one LTRIM, one LPUSH onto active: lua/includes/takeWaitingRun.lua), and a call that
 * completes many jobs reads every lock with one MGET and makes the writes all jobs share once
 * (lua/includes/finishJobsTogether.lua). These tests pin what one-by-one moves would have left:
 * the order of wait and active, a stray grouped job in the run, bullmq's old marker entries, a
 * lock lost mid-batch, the metrics count, removeOnComplete, and a killed batch recovered by a
 * bullmq worker's stalled checker.
 */
import { Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { BatchWorker, Job, Queue } from 'oxmq';
import { startChildWorker } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function newQueue(label: string): Queue {
  return track(new Queue(uniqueQueueName(label), { connection: redisOptions() }));
}

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

async function addWithIds(queue: Queue, jobIds: string[], opts: object = {}): Promise<void> {
  await queue.addBulk(
    jobIds.map((jobId) => ({ name: 'n', data: { jobId }, opts: { jobId, ...opts } })),
  );
}

/** A BatchWorker whose batches wait for `release()`; records each batch's job ids. */
function gatedBatchWorker(queue: Queue, opts: object = {}) {
  const batches: string[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const worker = track(
    new BatchWorker(
      queue.name,
      async (jobs: Job[]) => {
        batches.push(jobs.map((job) => job.id));
        await gate;
        return jobs.map((job) => job.id);
      },
      { connection: redisOptions(), ...opts },
    ),
  );
  return { worker, batches, release };
}

describe('a batch taken from wait in one run', () => {
  it('leaves wait and active in the order one-by-one pops would, with every job started', async () => {
    const queue = newQueue('run-order');
    const redis = track(rawClient());
    const key = (suffix: string) => `bull:${queue.name}:${suffix}`;
    await addWithIds(queue, ids('j', 8));
    const { batches, release } = gatedBatchWorker(queue, { batchSize: 5 });
    await waitFor(() => (batches.length === 1 ? true : null));

    expect(batches[0]).toEqual(ids('j', 5));
    // RPOPLPUSH one by one would leave the last one taken at the head of active.
    expect(await redis.lrange(key('active'), 0, -1)).toEqual(['j5', 'j4', 'j3', 'j2', 'j1']);
    expect(await redis.lrange(key('wait'), 0, -1)).toEqual(['j8', 'j7', 'j6']);
    for (const jobId of ids('j', 5)) {
      expect(await redis.get(key(`${jobId}:lock`))).toBeTruthy();
      expect(await redis.hmget(key(jobId), 'ats', 'processedOn')).toEqual([
        '1',
        expect.stringMatching(/^\d{13}$/),
      ]);
    }
    const events = await redis.xrange(key('events'), '-', '+');
    const active = events
      .filter(([, fields]) => fields[1] === 'active')
      .map(([, fields]) => fields[3]);
    expect(active).toEqual(ids('j', 5));
    release();
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 8 ? 1 : null));
  });

  it('sends a stray grouped job in the run back to its group and keeps the rest in line', async () => {
    const queue = newQueue('run-stray');
    const redis = track(rawClient());
    await addWithIds(queue, ids('p', 6));
    // A grouped job in the plain wait list, as bullmq's stalled checker leaves one; no group
    // is in the ring, so the fetch takes the one-run path and meets it there.
    await redis.hset(`bull:${queue.name}:p3`, 'gid', 'tenant');
    const processed: string[] = [];
    const batches: string[][] = [];
    track(
      new BatchWorker(
        queue.name,
        async (jobs: Job[]) => {
          batches.push(jobs.map((job) => job.id));
          processed.push(...jobs.map((job) => job.id));
          return jobs.map(() => 'ok');
        },
        { connection: redisOptions(), batchSize: 10 },
      ),
    );
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 6 ? 1 : null));

    expect([...processed].sort()).toEqual(ids('p', 6));
    // The run stops at the stray: the first batch starts with the jobs before it, and the
    // plain jobs keep their order across batches.
    expect(batches[0]!.slice(0, 2)).toEqual(['p1', 'p2']);
    expect(processed.filter((id) => id !== 'p3')).toEqual(['p1', 'p2', 'p4', 'p5', 'p6']);
    expect(await redis.llen(`bull:${queue.name}:wait`)).toBe(0);
    expect(await redis.exists(`bull:${queue.name}:groups:tenant:active`)).toBe(0);
  });

  it('drops the old marker entries of bullmq 4 / early 5 found in the run', async () => {
    const queue = newQueue('run-markers');
    const redis = track(rawClient());
    await addWithIds(queue, ['a', 'b']);
    // Wait is [b, a] head to tail: markers go at the tail (next in line) and in between.
    await redis.rpush(`bull:${queue.name}:wait`, '0:1700000000000');
    await redis.linsert(`bull:${queue.name}:wait`, 'BEFORE', 'a', '0:1700000000001');
    const { batches, release } = gatedBatchWorker(queue, { batchSize: 10 });
    await waitFor(() => (batches.length === 1 ? true : null));
    expect(batches[0]).toEqual(['a', 'b']);
    expect(await redis.lrange(`bull:${queue.name}:active`, 0, -1)).toEqual(['b', 'a']);
    expect(await redis.llen(`bull:${queue.name}:wait`)).toBe(0);
    release();
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 2 ? 1 : null));
  });
});

describe('a batch completed in one call', () => {
  it('refuses only the job whose lock another token took, and leaves that lock alone', async () => {
    const queue = newQueue('finish-lock');
    const redis = track(rawClient());
    await addWithIds(queue, ids('k', 4));
    const { worker, batches, release } = gatedBatchWorker(queue, { batchSize: 4 });
    const errors: Error[] = [];
    worker.on('error', (error: Error) => errors.push(error));
    const failed: string[] = [];
    worker.on('failed', (job) => failed.push(job!.id));
    await waitFor(() => (batches.length === 1 ? true : null));
    const lockKey = `bull:${queue.name}:k2:lock`;
    await redis.set(lockKey, 'someone-else', 'PX', 60_000);
    release();
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 3 ? 1 : null));

    expect(await redis.zrange(`bull:${queue.name}:completed`, 0, -1)).toEqual(['k1', 'k3', 'k4']);
    expect(await redis.get(lockKey)).toBe('someone-else');
    expect(await redis.lrange(`bull:${queue.name}:active`, 0, -1)).toEqual(['k2']);
    for (const jobId of ['k1', 'k3', 'k4']) {
      expect(await redis.exists(`bull:${queue.name}:${jobId}:lock`)).toBe(0);
    }
    expect(await redis.hget(`bull:${queue.name}:k2`, 'finishedOn')).toBeNull();
    expect(failed).toEqual([]);
  });

  it('counts every job of the call in the metrics and keeps nothing with removeOnComplete', async () => {
    const queue = newQueue('finish-metrics');
    const redis = track(rawClient());
    await addWithIds(queue, ids('m', 30), { removeOnComplete: true });
    const completed: string[] = [];
    const worker = track(
      new BatchWorker(queue.name, async (jobs: Job[]) => jobs.map(() => 1), {
        connection: redisOptions(),
        batchSize: 10,
        metrics: { maxDataPoints: 60 },
      }),
    );
    worker.on('completed', (job: Job) => completed.push(job.id));
    await waitFor(() => (completed.length === 30 ? true : null));

    expect(await redis.hget(`bull:${queue.name}:metrics:completed`, 'count')).toBe('30');
    const left = await redis.keys(`bull:${queue.name}:m[0-9]*`);
    expect(left).toEqual([]);
    expect(await redis.zcard(`bull:${queue.name}:completed`)).toBe(0);
    expect(await redis.scard(`bull:${queue.name}:stalled`)).toBe(0);
  });
});

describe('a killed batch', () => {
  it("is recovered by a bullmq worker's stalled checker and processed once by it", async () => {
    const queue = newQueue('batch-bull-stall');
    const jobIds = ids('s', 5);
    await addWithIds(queue, jobIds);
    const child = await startChildWorker({
      side: 'oxmq-batch',
      queueName: queue.name,
      port: redisOptions().port,
      lockDuration: 1_000,
      skipStalledCheck: true,
      batchSize: 10,
    });
    const batch = await child.waitForMessage((message) => message.event === 'batch');
    expect(batch.jobIds).toEqual(jobIds);
    await child.kill();

    const processed: string[] = [];
    const stalled: string[] = [];
    const bull = track(
      new BullWorker(
        queue.name,
        async (job) => {
          processed.push(job.id!);
          return 'bull';
        },
        {
          connection: { ...redisOptions(), maxRetriesPerRequest: null },
          stalledInterval: 300,
        },
      ),
    );
    bull.on('stalled', (jobId: string) => stalled.push(jobId));
    await waitFor(
      async () => ((await queue.getJobCounts('completed')).completed === 5 ? 1 : null),
      20_000,
    );
    expect([...stalled].sort()).toEqual(jobIds);
    expect([...processed].sort()).toEqual(jobIds);
    const job = await queue.getJob('s3');
    expect(job?.returnvalue).toBe('bull');
    // Started twice: once by the killed batch, once by the bullmq worker.
    expect(job?.attemptsStarted).toBe(2);
  });
});
