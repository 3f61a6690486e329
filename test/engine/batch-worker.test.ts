/**
 * BatchWorker against a real Redis: batch sizes and the byte budget, per-job failure inside a
 * batch, exactly-once delivery with BatchWorkers, Workers and bullmq workers on one queue,
 * rate limits counting every job, priorities, and stalled recovery after SIGKILL.
 */
import { Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { BatchWorker, Job, Queue, ValidationError, Worker } from 'oxmq';
import { startChildWorker } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => redisOptions();

function newQueue(label: string): Queue {
  return track(new Queue(uniqueQueueName(label), { connection: connection() }));
}

/** A BatchWorker that records every batch's job ids and completes each job with its id. */
function recordingWorker(
  queue: Queue,
  opts: {
    batchSize?: number;
    maxBatchBytes?: number;
    concurrency?: number;
    stalledInterval?: number;
  } = {},
) {
  const batches: string[][] = [];
  const worker = track(
    new BatchWorker(
      queue.name,
      async (jobs: Job[]) => {
        batches.push(jobs.map((job) => job.id));
        return jobs.map((job) => ({ id: job.id }));
      },
      { connection: connection(), ...opts },
    ),
  );
  return { worker, batches };
}

describe('BatchWorker', () => {
  it('takes up to batchSize jobs per batch and completes each with its own result', async () => {
    const queue = newQueue('batch-size');
    await queue.addBulk(Array.from({ length: 25 }, (_, i) => ({ name: 'n', data: { i } })));
    const { worker, batches } = recordingWorker(queue, { batchSize: 10 });
    const completed: string[] = [];
    worker.on('completed', (job: Job) => completed.push(job.id));
    // The events come right after the completing call returns: wait for them, not for Redis.
    await waitFor(() => (completed.length === 25 ? 1 : null));

    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
    expect(completed.sort()).toEqual(batches.flat().sort());
    const job = await queue.getJob('7');
    expect(job?.returnvalue).toEqual({ id: '7' });
    expect(job?.attemptsMade).toBe(1);
    expect(job?.finishedOn).toBeGreaterThan(0);
    expect(await queue.getJobCounts('active', 'waiting')).toEqual({ active: 0, waiting: 0 });
  });

  it('keeps each batch within maxBatchBytes; a job over the budget comes alone', async () => {
    const queue = newQueue('batch-bytes');
    // JSON of {"s":"xxx..."} is the string's length + 8 bytes.
    const sized = (bytes: number) => ({ s: 'x'.repeat(bytes - 8) });
    const sizes = [100, 100, 100, 100, 100, 1_000, 100, 100];
    await queue.addBulk(sizes.map((bytes, i) => ({ name: `j${i}`, data: sized(bytes) })));
    const { batches } = recordingWorker(queue, { batchSize: 10, maxBatchBytes: 250 });
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 8 ? 1 : null));

    const sizeOf = (id: string) => sizes[Number(id) - 1]!;
    expect(batches).toEqual([['1', '2'], ['3', '4'], ['5'], ['6'], ['7', '8']]);
    for (const batch of batches) {
      const bytes = batch.reduce((sum, id) => sum + sizeOf(id), 0);
      if (batch.length > 1) expect(bytes).toBeLessThanOrEqual(250);
    }
  });

  it('an Error in the results fails only that job, which is retried on its own', async () => {
    const queue = newQueue('batch-fail-one');
    await queue.addBulk(
      ['a', 'b', 'c'].map((name) => ({ name, data: {}, opts: { attempts: 2, jobId: name } })),
    );
    const seen: string[][] = [];
    track(
      new BatchWorker(
        queue.name,
        async (jobs: Job[]) => {
          seen.push(jobs.map((job) => `${job.id}#${job.attemptsMade}`));
          return jobs.map((job) =>
            job.id === 'b' && job.attemptsMade === 0 ? new Error('b is not ready') : job.id,
          );
        },
        { connection: connection(), batchSize: 10 },
      ),
    );
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 3 ? 1 : null));
    expect(seen).toEqual([['a#0', 'b#0', 'c#0'], ['b#1']]);
    const [a, b] = await Promise.all([queue.getJob('a'), queue.getJob('b')]);
    expect(a).toMatchObject({ attemptsMade: 1, returnvalue: 'a' });
    expect(b).toMatchObject({ attemptsMade: 2, returnvalue: 'b' });
    expect(b?.stacktrace[0]).toContain('b is not ready');
  });

  it('a throwing processor fails every job of the batch, each per its own attempts', async () => {
    const queue = newQueue('batch-throw');
    await queue.add('retry-me', {}, { jobId: 'r', attempts: 2 });
    await queue.add('once', {}, { jobId: 'o', attempts: 1 });
    track(
      new BatchWorker(
        queue.name,
        async () => {
          throw new Error('database down');
        },
        { connection: connection() },
      ),
    );
    await waitFor(async () => ((await queue.getJobCounts('failed')).failed === 2 ? 1 : null));
    const [r, o] = await Promise.all([queue.getJob('r'), queue.getJob('o')]);
    expect(r).toMatchObject({ attemptsMade: 2, failedReason: 'database down' });
    expect(o).toMatchObject({ attemptsMade: 1, failedReason: 'database down' });
  });

  it('processes every job exactly once beside Workers and bullmq Workers on one queue', async () => {
    const queue = newQueue('batch-mixed');
    const total = 600;
    await queue.addBulk(
      Array.from({ length: total }, (_, i) => ({
        name: 'n',
        data: { i },
        opts: { jobId: `j${i}` },
      })),
    );
    const processed = new Map<string, number>();
    const byKind = { batch: 0, worker: 0, bullmq: 0 };
    const count = (id: string, kind: keyof typeof byKind) => {
      byKind[kind] += 1;
      processed.set(id, (processed.get(id) ?? 0) + 1);
    };
    const slow = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let i = 0; i < 2; i++) {
      track(
        new BatchWorker(
          queue.name,
          async (jobs: Job[]) => {
            await slow(20);
            return jobs.map((job) => {
              count(job.id, 'batch');
              return 'b';
            });
          },
          { connection: connection(), batchSize: 20, concurrency: 2 },
        ),
      );
    }
    track(
      new Worker(
        queue.name,
        async (job) => {
          await slow(2);
          count(job.id, 'worker');
          return 'w';
        },
        { connection: connection(), concurrency: 5 },
      ),
    );
    track(
      new BullWorker(
        queue.name,
        async (job) => {
          await slow(2);
          count(job.id!, 'bullmq');
          return 'bull';
        },
        { connection: { ...connection(), maxRetriesPerRequest: null }, concurrency: 5 },
      ),
    );
    await waitFor(
      async () => ((await queue.getJobCounts('completed')).completed === total ? 1 : null),
      30_000,
    );
    expect(processed.size).toBe(total);
    // Every kind of worker took part, so the batches really raced the others.
    expect(byKind.batch).toBeGreaterThan(0);
    expect(byKind.worker).toBeGreaterThan(0);
    expect(byKind.bullmq).toBeGreaterThan(0);
    expect([...processed.values()].every((times) => times === 1)).toBe(true);
    expect(await queue.getJobCounts('active', 'waiting', 'failed')).toEqual({
      active: 0,
      waiting: 0,
      failed: 0,
    });
  });

  it('a rate limit counts every job of a batch', async () => {
    const queue = newQueue('batch-limit');
    await queue.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: 'n', data: { i } })));
    const batches: { at: number; size: number }[] = [];
    track(
      new BatchWorker(
        queue.name,
        async (jobs: Job[]) => {
          batches.push({ at: Date.now(), size: jobs.length });
          return jobs.map(() => null);
        },
        { connection: connection(), batchSize: 100, limiter: { max: 5, duration: 500 } },
      ),
    );
    await waitFor(async () =>
      (await queue.getJobCounts('completed')).completed === 12 ? 1 : null,
    );
    expect(batches.map((batch) => batch.size)).toEqual([5, 5, 2]);
    expect(batches[1]!.at - batches[0]!.at).toBeGreaterThanOrEqual(400);
  });

  it('takes prioritized jobs in priority order', async () => {
    const queue = newQueue('batch-priority');
    await queue.pause();
    await queue.add('low', {}, { jobId: 'low', priority: 10 });
    await queue.add('high', {}, { jobId: 'high', priority: 1 });
    await queue.add('mid', {}, { jobId: 'mid', priority: 5 });
    const { batches } = recordingWorker(queue, { batchSize: 10 });
    await queue.resume();
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 3 ? 1 : null));
    expect(batches.flat()).toEqual(['high', 'mid', 'low']);
  });

  it('holds each group to its concurrency inside a batch, and takes delayed jobs when due', async () => {
    const queue = newQueue('batch-groups');
    await queue.setGroupDefaults({ concurrency: 1 });
    await queue.addBulk([
      ...['a1', 'a2', 'a3'].map((id) => ({
        name: id,
        data: {},
        opts: { jobId: id, group: { id: 'a' } },
      })),
      ...['b1', 'b2'].map((id) => ({
        name: id,
        data: {},
        opts: { jobId: id, group: { id: 'b' } },
      })),
      { name: 'later', data: {}, opts: { jobId: 'later', delay: 300 } },
    ]);
    const { batches } = recordingWorker(queue, { batchSize: 10 });
    await waitFor(async () => ((await queue.getJobCounts('completed')).completed === 6 ? 1 : null));
    for (const batch of batches) {
      // Group concurrency 1: never two jobs of one group in the same (running) batch.
      expect(batch.filter((id) => id.startsWith('a')).length).toBeLessThanOrEqual(1);
      expect(batch.filter((id) => id.startsWith('b')).length).toBeLessThanOrEqual(1);
    }
    expect(batches.flat().filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    const later = await queue.getJob('later');
    expect(later!.processedOn! - later!.timestamp).toBeGreaterThanOrEqual(300);
  });

  it('closeGracefully gives every running job of a batch back to wait at the deadline', async () => {
    const queue = newQueue('batch-graceful');
    await queue.addBulk(['a', 'b', 'c'].map((id) => ({ name: id, data: {}, opts: { jobId: id } })));
    const started: string[] = [];
    const worker = new BatchWorker(
      queue.name,
      async (jobs: Job[]) => {
        started.push(...jobs.map((job) => job.id));
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        return jobs.map(() => 'late');
      },
      { connection: connection(), batchSize: 10 },
    );
    await waitFor(() => (started.length === 3 ? true : null));
    const report = await worker.closeGracefully(200);
    expect(report.returnedToWait.sort()).toEqual(['a', 'b', 'c']);
    expect(await queue.getJobCounts('active', 'waiting')).toEqual({ active: 0, waiting: 3 });
    const job = await queue.getJob('b');
    expect(job?.attemptsMade).toBe(0);
  });

  it('a Worker with several free slots takes a job for each in one fetch', async () => {
    const queue = newQueue('multi-fetch');
    await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'n', data: { i } })));
    const tokens: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    track(
      new Worker(
        queue.name,
        async (job) => {
          tokens.push(job.token!);
          await gate;
        },
        { connection: connection(), concurrency: 20 },
      ),
    );
    await waitFor(() => (tokens.length === 20 ? true : null));
    // One fetch call for the 20 free slots: the jobs it took share its lock token.
    expect(new Set(tokens).size).toBe(1);
    release();
    await waitFor(async () =>
      (await queue.getJobCounts('completed')).completed === 20 ? 1 : null,
    );
  });

  it('refuses bad options with a ValidationError', () => {
    const make = (opts: object) => () =>
      new BatchWorker('q', async () => [], { connection: connection(), autorun: false, ...opts });
    expect(make({ batchSize: 0 })).toThrow(ValidationError);
    expect(make({ batchSize: 1.5 })).toThrow('batchSize must be an integer from 1 to 10000');
    expect(make({ maxBatchBytes: -1 })).toThrow(ValidationError);
  });

  it('a batch worker killed with SIGKILL has its jobs recovered as stalled', async () => {
    const queue = newQueue('batch-kill');
    await queue.addBulk(['a', 'b', 'c'].map((id) => ({ name: id, data: {}, opts: { jobId: id } })));
    const child = await startChildWorker({
      side: 'oxmq-batch',
      queueName: queue.name,
      port: connection().port,
      lockDuration: 1_000,
      // Its stalled check would hold the queue's stalled-check throttle for the default 30 s.
      skipStalledCheck: true,
      batchSize: 10,
    });
    const batch = await child.waitForMessage((message) => message.event === 'batch');
    expect(batch.jobIds).toEqual(['a', 'b', 'c']);
    await child.kill();
    expect((await queue.getJobCounts('active')).active).toBe(3);

    const { worker, batches } = recordingWorker(queue, { batchSize: 10, stalledInterval: 300 });
    const stalled: string[] = [];
    worker.on('stalled', (id: string) => stalled.push(id));
    await waitFor(
      async () => ((await queue.getJobCounts('completed')).completed === 3 ? 1 : null),
      20_000,
    );
    expect(stalled.sort()).toEqual(['a', 'b', 'c']);
    expect(batches.flat().sort()).toEqual(['a', 'b', 'c']);
  });
});
