/**
 * bullmq 6.7.0's Job API where OxMQ had gaps: the statics (create, createBulk, fromJSON), the
 * job's delay after a backoff, retry() clearing the failure, and waitUntilFinished's rejections.
 */
import { QueueEvents as BullQueueEvents } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Job, JobFailedError, JobNotFoundError, Queue, QueueEvents, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

function context(label: string) {
  const name = uniqueQueueName(label);
  return { name, queue: track(new Queue(name, connection())), redis: track(rawClient()) };
}

describe('Job statics', () => {
  it('create and createBulk add through the queue', async () => {
    const { name, queue, redis } = context('job-create');
    const one = await Job.create(queue, 'one', { a: 1 }, { jobId: 'custom-1', priority: 3 });
    expect(one.id).toBe('custom-1');
    expect(one.opts.priority).toBe(3);
    const many = await Job.createBulk(queue, [
      { name: 'two', data: { b: 2 } },
      { name: 'three', data: { c: 3 }, opts: { delay: 60_000 } },
    ]);
    expect(many.map((job) => job.name)).toEqual(['two', 'three']);
    expect(await redis.hget(`bull:${name}:${many[1]!.id}`, 'name')).toBe('three');
    expect(await queue.getJobCounts('prioritized', 'waiting', 'delayed')).toEqual({
      prioritized: 1,
      waiting: 1,
      delayed: 1,
    });
  });

  it('fromJSON(asJSON()) gives back the same job', async () => {
    const { queue } = context('job-json');
    const added = await queue.add('x', { deep: { list: [1, 2] } }, { attempts: 4, delay: 10 });
    const copy = Job.fromJSON(queue, added.asJSON());
    expect(copy.id).toBe(added.id);
    expect(copy.name).toBe('x');
    expect(copy.data).toEqual({ deep: { list: [1, 2] } });
    expect(copy.opts.attempts).toBe(4);
    expect(copy.delay).toBe(10);
    expect(copy.timestamp).toBe(added.timestamp);
    expect(() => Job.fromJSON(queue, { name: 'no id' })).toThrow(/job id/);
  });

  it('optsFromJSON decodes stored options; addJobLog logs by id', async () => {
    const { queue } = context('job-statics');
    expect(Job.optsFromJSON('{"attempts":3,"kl":5,"rdof":true}')).toEqual({
      attempts: 3,
      keepLogs: 5,
      removeDependencyOnFailure: true,
    });
    expect(Job.optsFromJSON()).toEqual({});
    const added = await queue.add('x', {});
    expect(await Job.addJobLog(queue, added.id, 'one')).toBe(1);
    expect(await Job.addJobLog(queue, added.id, 'two', 1)).toBe(1);
    expect((await queue.getJobLogs(added.id)).logs).toEqual(['two']);
  });
});

describe('Job behaviour', () => {
  it("a retry's backoff shows in job.delay", async () => {
    const { name, queue } = context('job-delay');
    await queue.add('x', {}, { attempts: 2, backoff: { type: 'fixed', delay: 60_000 } });
    const worker = track(
      new Worker(
        name,
        async () => {
          throw new Error('again');
        },
        connection(),
      ),
    );
    const failed = await new Promise<Job>((resolve) =>
      worker.once('failed', (job) => resolve(job!)),
    );
    expect(failed.delay).toBe(60_000);
  });

  it('retry() clears the failure reason locally and in Redis', async () => {
    const { name, queue, redis } = context('job-retry');
    const added = await queue.add('x', {});
    const worker = track(
      new Worker(
        name,
        async () => {
          throw new Error('boom');
        },
        connection(),
      ),
    );
    await waitFor(async () => (await queue.getJobState(added.id)) === 'failed');
    await worker.close();
    const job = (await queue.getJob(added.id))!;
    expect(job.failedReason).toBe('boom');
    await job.retry();
    expect(job.failedReason).toBeUndefined();
    expect(await redis.hexists(`bull:${name}:${added.id}`, 'failedReason')).toBe(0);
    expect(await queue.getJobState(added.id)).toBe('waiting');
  });
});

describe('waitUntilFinished', () => {
  it.each(['oxmq', 'bullmq'] as const)(
    'rejects with JobFailedError (id, reason, stack traces) with a %s QueueEvents',
    async (side) => {
      const { name, queue } = context('wuf-typed');
      const events =
        side === 'oxmq'
          ? track(new QueueEvents(name, connection()))
          : track(new BullQueueEvents(name, connection()));
      const job = await queue.add('bad', {});
      const outcome = job.waitUntilFinished(events).catch((error: unknown) => error);
      track(
        new Worker(
          name,
          async () => {
            throw new Error('it broke');
          },
          connection(),
        ),
      );
      const error = (await outcome) as JobFailedError;
      expect(error).toBeInstanceOf(JobFailedError);
      expect(error.code).toBe('JOB_FAILED');
      expect(error.message).toBe('it broke');
      expect(error.jobId).toBe(job.id);
      expect(error.failedReason).toBe('it broke');
      expect(error.stacktrace).toHaveLength(1);
      expect(error.stacktrace[0]).toMatch(/^Error: it broke/);
    },
  );

  it('rejects, not hangs, for a job already removed on completion', async () => {
    const { name, queue, redis } = context('wuf-removed');
    const job = await queue.add('x', {}, { removeOnComplete: true });
    track(new Worker(name, async () => 'gone', connection()));
    await waitFor(async () => (await redis.exists(`bull:${name}:${job.id}`)) === 0);
    const events = track(new QueueEvents(name, connection()));
    await expect(job.waitUntilFinished(events)).rejects.toBeInstanceOf(JobNotFoundError);
  });
});

describe('job.clearLogs', () => {
  it('keeps the newest lines or none, like bullmq', async () => {
    const { Queue: BullQueue } = await import('bullmq');
    const runs = [] as { kept: string[]; none: number }[];
    for (const side of ['oxmq', 'bullmq'] as const) {
      const name = uniqueQueueName(`clear-logs-${side}`);
      const queue =
        side === 'oxmq'
          ? track(new Queue(name, connection()))
          : track(new BullQueue(name, connection()));
      const job = await queue.add('logged', {});
      for (let i = 1; i <= 5; i += 1) await job.log(`line ${i}`);
      await job.clearLogs(2);
      const kept = (await queue.getJobLogs(job.id!)).logs;
      await job.clearLogs();
      runs.push({ kept, none: (await queue.getJobLogs(job.id!)).count });
    }
    expect(runs[0]).toEqual({ kept: ['line 4', 'line 5'], none: 0 });
    expect(runs[0]).toEqual(runs[1]);
  });
});
