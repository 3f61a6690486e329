/**
 * Interop, docs/redis-keys.md (pause/resume) and 23 (custom-id duplicates), both directions
 * between OxMQ (N) and bullmq 6.7.0 (B).
 */
import { Queue as BullQueue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import type { WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { eventsNamed, jobKeys, streamEntries } from '../helpers/redis-state';
import { otherSide, sideLabel, startSideWorker } from '../helpers/side-worker';

const track = useCleanup();

interface JobOpts {
  jobId?: string;
  priority?: number;
}

/** The operations these cases need, from either library's Queue. */
interface SideQueue {
  add(name: string, data: unknown, opts?: JobOpts): Promise<string>;
  addBulk(jobs: { name: string; data: unknown; opts?: JobOpts }[]): Promise<string[]>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  isPaused(): Promise<boolean>;
  getJobCounts(): Promise<Record<string, number>>;
}

async function openQueue(side: WorkerSide, name: string): Promise<SideQueue> {
  if (side === 'oxmq') {
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.waitUntilReady();
    return {
      add: async (jobName, data, opts) => (await queue.add(jobName, data, opts)).id,
      addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id),
      pause: () => queue.pause(),
      resume: () => queue.resume(),
      isPaused: () => queue.isPaused(),
      getJobCounts: () => queue.getJobCounts(),
    };
  }
  const queue = track(new BullQueue(name, { connection: redisOptions() }));
  await queue.waitUntilReady();
  return {
    add: async (jobName, data, opts) => (await queue.add(jobName, data, opts)).id ?? '',
    addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id ?? ''),
    pause: () => queue.pause(),
    resume: () => queue.resume(),
    isPaused: () => queue.isPaused(),
    getJobCounts: () => queue.getJobCounts(),
  };
}

const pausedListKey = (name: string) => `bull:${name}:paused`;

async function expectNoPausedList(redis: Redis, name: string): Promise<void> {
  expect(await redis.exists(pausedListKey(name))).toBe(0);
}

describe('pause/resume', () => {
  for (const pauser of ['bullmq', 'oxmq'] as const) {
    const adder = otherSide(pauser);
    // The adding side resumes here; the pausing side's resume is covered by the other direction.
    const resumer = adder;

    it(`${sideLabel(pauser)} pauses, ${sideLabel(adder)} adds: no worker starts a job until ${sideLabel(resumer)} resumes`, async () => {
      const name = uniqueQueueName('pause');
      const redis = track(rawClient());
      const queues = {
        oxmq: await openQueue('oxmq', name),
        bullmq: await openQueue('bullmq', name),
      };
      const workers = (['oxmq', 'bullmq'] as const).map((side) =>
        track(startSideWorker(side, name, async (job) => job.name, { drainDelay: 1 })),
      );
      await Promise.all(workers.map((w) => w.waitUntilReady()));
      await expectNoPausedList(redis, name);

      await queues[pauser].pause();
      expect(await redis.hget(`bull:${name}:meta`, 'paused')).toBe('1');
      expect(await queues.oxmq.isPaused()).toBe(true);
      expect(await queues.bullmq.isPaused()).toBe(true);

      const ids = [
        ...(await queues[adder].addBulk([
          { name: 'a', data: {} },
          { name: 'b', data: {} },
        ])),
        await queues[adder].add('c', {}),
        await queues[adder].add('p', {}, { priority: 2 }),
      ];
      // Long enough for both workers to poll and block again (drainDelay 1 s).
      await sleep(1_500);

      for (const worker of workers) expect(worker.started).toEqual([]);
      expect(await redis.llen(`bull:${name}:active`)).toBe(0);
      expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([ids[2], ids[1], ids[0]]);
      // Adds while paused never write the "jobs available" marker.
      expect(await redis.zscore(`bull:${name}:marker`, '0')).toBeNull();
      await expectNoPausedList(redis, name);
      const expectedCounts = {
        active: 0,
        completed: 0,
        delayed: 0,
        failed: 0,
        prioritized: 1,
        waiting: 3,
        'waiting-children': 0,
      };
      expect(await queues.bullmq.getJobCounts()).toEqual(expectedCounts);
      expect(await queues.oxmq.getJobCounts()).toEqual(expectedCounts);

      await queues[resumer].resume();
      expect(await redis.hexists(`bull:${name}:meta`, 'paused')).toBe(0);
      await waitFor(() => workers.flatMap((w) => w.completed).length === 4, 10_000);

      expect(workers.flatMap((w) => w.completed).sort()).toEqual([...ids].sort());
      expect(await queues.oxmq.isPaused()).toBe(false);
      expect(await queues.bullmq.isPaused()).toBe(false);
      await expectNoPausedList(redis, name);
      for (const worker of workers) expect(worker.errors).toEqual([]);

      // One `paused` before the adds and one `resumed` after them, neither with any field.
      const names = (await streamEntries(redis, name)).map((e) => e.fields.event);
      expect(await eventsNamed(redis, name, 'paused')).toEqual([{ event: 'paused' }]);
      expect(await eventsNamed(redis, name, 'resumed')).toEqual([{ event: 'resumed' }]);
      const pausedAt = names.indexOf('paused');
      const resumedAt = names.indexOf('resumed');
      expect(names.indexOf('added')).toBeGreaterThan(pausedAt);
      expect(names.lastIndexOf('added')).toBeLessThan(resumedAt);
      expect(names.indexOf('active')).toBeGreaterThan(resumedAt);
    });
  }
});

describe('custom-id duplicates', () => {
  for (const first of ['bullmq', 'oxmq'] as const) {
    const second = otherSide(first);

    it(`${sideLabel(first)} adds jobId 'x', ${sideLabel(second)} adds it again: same id, duplicated event, nothing written`, async () => {
      const name = uniqueQueueName('dup');
      const redis = track(rawClient());
      const producers = {
        first: await openQueue(first, name),
        second: await openQueue(second, name),
      };

      expect(await producers.first.add('orig', { v: 1 }, { jobId: 'x' })).toBe('x');
      const before = await redis.hgetall(`bull:${name}:x`);
      expect(await producers.second.add('copy', { v: 2 }, { jobId: 'x' })).toBe('x');

      expect(await redis.hgetall(`bull:${name}:x`)).toEqual(before);
      expect(before.data).toBe('{"v":1}');
      expect(before.name).toBe('orig');
      expect(await jobKeys(redis, name)).toEqual([`bull:${name}:x`]);
      expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual(['x']);
      expect(await redis.get(`bull:${name}:id`)).toBe('2');
      expect(await eventsNamed(redis, name, 'added')).toEqual([
        { event: 'added', jobId: 'x', name: 'orig' },
      ]);
      expect(await eventsNamed(redis, name, 'duplicated')).toEqual([
        { event: 'duplicated', jobId: 'x' },
      ]);

      // In a bulk add too; the counter moved for the duplicate, which the next automatic id shows.
      expect(
        await producers.second.addBulk([
          { name: 'copy', data: { v: 3 }, opts: { jobId: 'x' } },
          { name: 'auto', data: {} },
        ]),
      ).toEqual(['x', '4']);
      expect(await redis.get(`bull:${name}:id`)).toBe('4');
      expect(await redis.hget(`bull:${name}:x`, 'data')).toBe('{"v":1}');
      expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual(['4', 'x']);
      expect(await eventsNamed(redis, name, 'duplicated')).toEqual([
        { event: 'duplicated', jobId: 'x' },
        { event: 'duplicated', jobId: 'x' },
      ]);

      // A finished job is still a duplicate: it stays completed and is not queued again.
      const worker = track(startSideWorker(first, name, async (job) => job.data));
      await waitFor(() => worker.completed.length === 2, 10_000);
      const done = await redis.hgetall(`bull:${name}:x`);
      expect(done.returnvalue).toBe('{"v":1}');
      expect(await producers.second.add('late', { v: 4 }, { jobId: 'x' })).toBe('x');
      await sleep(300);
      expect(await redis.hgetall(`bull:${name}:x`)).toEqual(done);
      expect(await redis.zscore(`bull:${name}:completed`, 'x')).toBe(done.finishedOn);
      expect(await redis.llen(`bull:${name}:wait`)).toBe(0);
      expect(worker.started.filter((id) => id === 'x')).toHaveLength(1);
      expect(await redis.get(`bull:${name}:id`)).toBe('5');
      expect(await eventsNamed(redis, name, 'duplicated')).toHaveLength(3);
      expect(worker.errors).toEqual([]);
    });
  }
});
