/**
 * Interop with the real bullmq 6.7.0, docs/redis-keys.md (B = bullmq, N = OxMQ): progress
 * updates and job logs trimmed to keepLogs, written by one library and read by the other.
 */
import {
  Queue as BullQueue,
  QueueEvents as BullQueueEvents,
  Worker as BullWorker,
  type Job as BullJob,
} from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { collectErrors } from '../helpers/interop-core';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { jobEvents, queueKey } from '../helpers/redis-state';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

/** What both libraries' processors can do with their job. */
interface ReportingJob {
  updateProgress(progress: number | object): Promise<void>;
  log(line: string): Promise<number>;
}

/** The processor both directions run: two progress updates and three log lines. */
async function report(job: ReportingJob): Promise<number[]> {
  await job.updateProgress({ p: 50 });
  const kept: number[] = [];
  for (const line of ['one', 'two', 'three']) kept.push(await job.log(line));
  await job.updateProgress(100);
  return kept;
}

describe('interop: progress and logs', () => {
  it('OxMQ processor on a bullmq job: bullmq QueueEvents gets parsed progress, getJobLogs the last 2 lines', async () => {
    const name = uniqueQueueName('i12a');
    const redis = track(rawClient());
    const bq = track(new BullQueue(name, connection()));
    const bqe = track(new BullQueueEvents(name, connection()));
    await bqe.waitUntilReady();
    const progress: { jobId: string; data: unknown }[] = [];
    bqe.on('progress', ({ jobId, data }) => progress.push({ jobId, data }));

    const job = await bq.add('report', { r: 1 }, { keepLogs: 2 });
    const id = job.id!;
    const finished = job.waitUntilFinished(bqe, 15_000);
    const worker = track(new Worker(name, (j: Job) => report(j), connection()));
    const errors = collectErrors(worker);

    // log() reports the lines kept: 1, 2, then capped at keepLogs.
    await expect(finished).resolves.toEqual([1, 2, 2]);
    await waitFor(() => progress.length === 2);
    expect(progress).toEqual([
      { jobId: id, data: { p: 50 } },
      { jobId: id, data: 100 },
    ]);
    expect(await bq.getJobLogs(id)).toEqual({ logs: ['two', 'three'], count: 2 });
    expect(await bq.getJobLogs(id, 0, 0, false)).toEqual({ logs: ['three'], count: 2 });
    expect(await redis.lrange(queueKey(name, `${id}:logs`), 0, -1)).toEqual(['two', 'three']);

    const hash = await redis.hgetall(queueKey(name, id));
    expect(hash.progress).toBe('100');
    expect((await bq.getJob(id))?.progress).toBe(100);
    const raw = (await jobEvents(redis, name, id)).filter((e) => e.event === 'progress');
    expect(raw).toEqual([
      { event: 'progress', jobId: id, data: '{"p":50}' },
      { event: 'progress', jobId: id, data: '100' },
    ]);
    expect(errors).toEqual([]);
  });

  it('bullmq processor on an OxMQ job: OxMQ QueueEvents and both getJobLogs agree', async () => {
    const name = uniqueQueueName('i12b');
    const redis = track(rawClient());
    const nq = track(new Queue(name, connection()));
    const bq = track(new BullQueue(name, connection()));
    const nqe = track(new QueueEvents(name, connection()));
    const bqe = track(new BullQueueEvents(name, connection()));
    await Promise.all([nqe.waitUntilReady(), bqe.waitUntilReady()]);
    const nProgress: unknown[] = [];
    const bProgress: unknown[] = [];
    nqe.on('progress', ({ data }) => nProgress.push(data));
    bqe.on('progress', ({ data }) => bProgress.push(data));

    const job = await nq.add('report', { r: 2 }, { keepLogs: 2 });
    // `kl` is the stored key bullmq reads keepLogs from.
    expect(JSON.parse((await redis.hget(queueKey(name, job.id), 'opts')) ?? '{}')).toMatchObject({
      kl: 2,
    });
    const worker = track(new BullWorker(name, (j: BullJob) => report(j), connection()));
    const errors = collectErrors(worker);

    await expect(job.waitUntilFinished(nqe, 15_000)).resolves.toEqual([1, 2, 2]);
    await waitFor(() => nProgress.length === 2 && bProgress.length === 2);
    expect(nProgress).toEqual([{ p: 50 }, 100]);
    expect(bProgress).toEqual([{ p: 50 }, 100]);
    expect(await nq.getJobLogs(job.id)).toEqual({ logs: ['two', 'three'], count: 2 });
    expect(await bq.getJobLogs(job.id)).toEqual({ logs: ['two', 'three'], count: 2 });
    expect(await nq.getJobLogs(job.id, 0, 0, false)).toEqual({ logs: ['three'], count: 2 });
    expect((await nq.getJob(job.id))?.progress).toBe(100);
    expect(errors).toEqual([]);
  });

  it('OxMQ progress while the job runs is visible to bullmq getJob mid-flight', async () => {
    const name = uniqueQueueName('i12c');
    const bq = track(new BullQueue(name, connection()));
    const job = await bq.add('slow', {}, { keepLogs: 2 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = track(
      new Worker(
        name,
        async (j: Job) => {
          await j.updateProgress({ step: 'half', pct: 50 });
          await j.log('halfway');
          await gate;
          return 'done';
        },
        connection(),
      ),
    );
    const errors = collectErrors(worker);
    try {
      await waitFor(async () => (await bq.getJobLogs(job.id!)).count === 1);
      const midway = await bq.getJob(job.id!);
      expect(midway?.progress).toEqual({ step: 'half', pct: 50 });
      expect(await midway?.isActive()).toBe(true);
    } finally {
      // Never leave the processor hanging: the worker's close() would wait for it.
      release();
    }
    await waitFor(async () => (await bq.getJobState(job.id!)) === 'completed');
    expect(errors).toEqual([]);
  });
});
