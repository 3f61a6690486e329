/**
 * Interop with the real bullmq 6.7.0, docs/redis-keys.md, each in both directions
 * (B = bullmq, N = OxMQ): retries with exponential backoff, final failure, and the
 * removeOnComplete / removeOnFail trimming of finished jobs.
 */
import {
  Queue as BullQueue,
  QueueEvents as BullQueueEvents,
  Worker as BullWorker,
  type Job as BullJob,
} from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Worker, type Job } from 'oxmq';
import type { WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { type SharedJobsOptions, collectErrors } from '../helpers/interop-core';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { jobEvents, queueKey } from '../helpers/redis-state';
import { DIRECTIONS, sideProducer } from '../helpers/side-worker';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

/** What a processor sees of a job, whichever library runs it. */
interface RunningJob {
  id?: string;
  name: string;
  data: unknown;
  attemptsMade: number;
  log(line: string): Promise<number>;
}
type Handler = (job: RunningJob) => Promise<unknown>;

function consumer(side: WorkerSide, queueName: string, handler: Handler): Error[] {
  const common = { ...connection(), concurrency: 1 };
  const worker =
    side === 'bullmq'
      ? track(new BullWorker(queueName, (job: BullJob) => handler(job), common))
      : track(new Worker(queueName, (job: Job) => handler(job), common));
  return collectErrors(worker);
}

/** The events of one job reduced to `name` or `name(prev)`, the shape both libraries must share. */
async function eventTrail(redis: ReturnType<typeof rawClient>, queueName: string, id: string) {
  return (await jobEvents(redis, queueName, id)).map((e) =>
    e.prev ? `${e.event}(${e.prev})` : (e.event ?? '?'),
  );
}

describe.each(DIRECTIONS)(
  'interop: retries: $producer producer → $consumer worker',
  ({ producer: producerSide, consumer: consumerSide }) => {
    it('exponential backoff 200/400 ms, then success', async () => {
      const name = uniqueQueueName('i9');
      const redis = track(rawClient());
      const { add } = sideProducer(track, producerSide, name);
      const id = await add(
        'flaky',
        { n: 1 },
        { attempts: 3, backoff: { type: 'exponential', delay: 200 } },
      );

      const failedAt: number[] = [];
      const startedAt: number[] = [];
      const errors = consumer(consumerSide, name, async (job) => {
        startedAt.push(Date.now());
        if (job.attemptsMade < 2) {
          failedAt.push(Date.now());
          throw new Error(`fail ${job.attemptsMade}`);
        }
        return { ok: job.attemptsMade };
      });
      await waitFor(
        async () => (await redis.zscore(queueKey(name, 'completed'), id)) !== null,
        15_000,
      );

      const delayed = (await jobEvents(redis, name, id)).filter((e) => e.event === 'delayed');
      expect(delayed).toHaveLength(2);
      const dues = delayed.map((e) => Number(e.delay));
      // Due = (moment of the retry call) + 2^(attempt-1) * 200; the call follows the throw closely.
      expect(dues[0]! - failedAt[0]!).toBeGreaterThanOrEqual(200);
      expect(dues[0]! - failedAt[0]!).toBeLessThan(200 + 180);
      expect(dues[1]! - failedAt[1]!).toBeGreaterThanOrEqual(400);
      expect(dues[1]! - failedAt[1]!).toBeLessThan(400 + 180);
      // Never early.
      expect(startedAt[1]!).toBeGreaterThanOrEqual(dues[0]!);
      expect(startedAt[2]!).toBeGreaterThanOrEqual(dues[1]!);

      const hash = await redis.hgetall(queueKey(name, id));
      expect(hash.atm).toBe('3');
      expect(hash.ats).toBe('3');
      expect(hash.failedReason).toBe('fail 1');
      const stacktrace: unknown = JSON.parse(hash.stacktrace ?? 'null');
      expect(Array.isArray(stacktrace)).toBe(true);
      expect(stacktrace).toHaveLength(2);
      expect((stacktrace as string[])[0]).toContain('fail 0');
      expect((stacktrace as string[])[1]).toContain('fail 1');
      expect(hash.returnvalue).toBe('{"ok":2}');
      expect(hash.delay).toBe('0');
      expect(await redis.zscore(queueKey(name, 'completed'), id)).toBe(hash.finishedOn);
      expect(await redis.zscore(queueKey(name, 'delayed'), id)).toBeNull();

      expect(await eventTrail(redis, name, id)).toEqual([
        'added',
        'waiting',
        'active(waiting)',
        'delayed',
        'waiting(delayed)',
        'active(waiting)',
        'delayed',
        'waiting(delayed)',
        'active(waiting)',
        'completed(active)',
      ]);
      expect(errors).toEqual([]);
    });

    it('final failure after 2 attempts: failed, then retries-exhausted (attemptsMade "2")', async () => {
      const name = uniqueQueueName('i10');
      const redis = track(rawClient());
      const { add } = sideProducer(track, producerSide, name);
      const bq = track(new BullQueue(name, connection()));
      const bqe = track(new BullQueueEvents(name, connection()));
      await bqe.waitUntilReady();
      const seen: string[] = [];
      bqe.on('failed', ({ jobId, failedReason }) => seen.push(`failed:${jobId}:${failedReason}`));
      bqe.on('retries-exhausted', ({ jobId, attemptsMade }) =>
        seen.push(`retries-exhausted:${jobId}:${attemptsMade}`),
      );

      const id = await add('doomed', { n: 2 }, { attempts: 2 });
      const errors = consumer(consumerSide, name, async (job) => {
        throw new Error(`boom ${job.attemptsMade + 1}`);
      });
      await waitFor(
        async () => (await redis.zscore(queueKey(name, 'failed'), id)) !== null,
        15_000,
      );
      await waitFor(() => seen.length === 2);

      const hash = await redis.hgetall(queueKey(name, id));
      expect(hash.failedReason).toBe('boom 2');
      expect(hash.atm).toBe('2');
      expect(hash.ats).toBe('2');
      expect(JSON.parse(hash.stacktrace ?? 'null')).toHaveLength(2);
      expect(await redis.zscore(queueKey(name, 'failed'), id)).toBe(hash.finishedOn);
      expect(hash.returnvalue).toBeUndefined();

      const events = await jobEvents(redis, name, id);
      const failedAt = events.findIndex((e) => e.event === 'failed');
      expect(events[failedAt]).toEqual({
        event: 'failed',
        jobId: id,
        failedReason: 'boom 2',
        prev: 'active',
      });
      expect(events[failedAt + 1]).toEqual({
        event: 'retries-exhausted',
        jobId: id,
        attemptsMade: '2',
      });
      // A retry without backoff goes straight back to wait; only the final failure emits `failed`.
      expect(await eventTrail(redis, name, id)).toEqual([
        'added',
        'waiting',
        'active(waiting)',
        'waiting(active)',
        'active(waiting)',
        'failed(active)',
        'retries-exhausted',
      ]);
      expect(seen).toEqual([`failed:${id}:boom 2`, `retries-exhausted:${id}:2`]);

      const job = await bq.getJob(id);
      expect(await job!.isFailed()).toBe(true);
      expect(job!.failedReason).toBe('boom 2');
      expect(job!.attemptsMade).toBe(2);
      expect(job!.stacktrace).toHaveLength(2);
      expect(await bq.getFailedCount()).toBe(1);
      expect(errors).toEqual([]);
    });
  },
);

describe.each(DIRECTIONS)(
  'interop: keep rules: $producer producer → $consumer worker',
  ({ producer: producerSide, consumer: consumerSide }) => {
    it('removeOnComplete: 2 keeps the newest two; removeOnFail {age: 1} drops older failures', async () => {
      const name = uniqueQueueName('i11');
      const redis = track(rawClient());
      const { add } = sideProducer(track, producerSide, name);
      const finished: string[] = [];
      const errors = consumer(consumerSide, name, async (job) => {
        await job.log(`log of ${job.id}`);
        // Distinct finishing times, so "newest" is well defined.
        await sleep(5);
        finished.push(job.id!);
        if (job.name === 'fail') throw new Error(`failing ${job.id}`);
        return job.id;
      });

      const completedIds: string[] = [];
      for (let i = 0; i < 5; i++) {
        completedIds.push(await add('ok', { i }, { removeOnComplete: 2 }));
      }
      await waitFor(async () => {
        const events = await Promise.all(completedIds.map((id) => jobEvents(redis, name, id)));
        return events.every((list) => list.some((e) => e.event === 'completed'));
      }, 15_000);

      expect(await redis.zrange(queueKey(name, 'completed'), 0, -1)).toEqual(completedIds.slice(3));
      for (const id of completedIds.slice(0, 3)) {
        expect(await redis.exists(queueKey(name, id)), `hash of trimmed job ${id}`).toBe(0);
        expect(await redis.exists(queueKey(name, `${id}:logs`)), `logs of trimmed job ${id}`).toBe(
          0,
        );
      }
      for (const id of completedIds.slice(3)) {
        expect(await redis.exists(queueKey(name, id))).toBe(1);
        expect(await redis.lrange(queueKey(name, `${id}:logs`), 0, -1)).toEqual([`log of ${id}`]);
      }

      const failOpts: SharedJobsOptions = { removeOnFail: { age: 1 }, attempts: 1 };
      const firstFailure = await add('fail', { f: 1 }, failOpts);
      await waitFor(
        async () => (await redis.zscore(queueKey(name, 'failed'), firstFailure)) !== null,
      );
      expect(await redis.exists(queueKey(name, `${firstFailure}:logs`))).toBe(1);
      // Age is in seconds and is only applied when another job fails.
      await sleep(1_300);
      expect(await redis.exists(queueKey(name, firstFailure))).toBe(1);
      const secondFailure = await add('fail', { f: 2 }, failOpts);
      await waitFor(
        async () => (await redis.zscore(queueKey(name, 'failed'), secondFailure)) !== null,
      );

      expect(await redis.zrange(queueKey(name, 'failed'), 0, -1)).toEqual([secondFailure]);
      expect(await redis.exists(queueKey(name, firstFailure))).toBe(0);
      expect(await redis.exists(queueKey(name, `${firstFailure}:logs`))).toBe(0);
      expect(await redis.exists(queueKey(name, secondFailure))).toBe(1);
      expect(await redis.exists(queueKey(name, `${secondFailure}:logs`))).toBe(1);
      // The trimmed jobs' `completed`/`failed` events were still emitted with their values.
      const firstEvents = await jobEvents(redis, name, firstFailure);
      expect(
        firstEvents.some(
          (e) => e.event === 'failed' && e.failedReason === `failing ${firstFailure}`,
        ),
      ).toBe(true);
      expect(finished).toHaveLength(7);
      expect(errors).toEqual([]);
    });

    it('removeOnComplete: true deletes the job with its logs but still emits completed', async () => {
      const name = uniqueQueueName('i11b');
      const redis = track(rawClient());
      const { add } = sideProducer(track, producerSide, name);
      const errors = consumer(consumerSide, name, async (job) => {
        await job.log('about to vanish');
        return 'gone';
      });
      const id = await add('vanish', {}, { removeOnComplete: true });
      await waitFor(async () =>
        (await jobEvents(redis, name, id)).some((e) => e.event === 'completed'),
      );
      const completed = (await jobEvents(redis, name, id)).find((e) => e.event === 'completed');
      expect(completed?.returnvalue).toBe('"gone"');
      expect(await redis.exists(queueKey(name, id))).toBe(0);
      expect(await redis.exists(queueKey(name, `${id}:logs`))).toBe(0);
      expect(await redis.zcard(queueKey(name, 'completed'))).toBe(0);
      expect(errors).toEqual([]);
    });
  },
);
