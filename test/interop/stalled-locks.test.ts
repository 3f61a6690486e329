/**
 * Interop, docs/redis-keys.md (stalled recovery) and 18 (lock renewal), both directions between
 * OxMQ (N) and bullmq 6.7.0 (B). The worker that dies runs in a child process and is SIGKILLed,
 * so its lock expires on its own; the surviving side's stalled checker must find the job.
 */
import { describe, expect, inject, it } from 'vitest';
import { startChildWorker, type WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { gate } from '../helpers/interop-core';
import { rawClient, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { eventsNamed, streamEntries } from '../helpers/redis-state';
import { otherSide, sideLabel, sideProducer, startSideWorker } from '../helpers/side-worker';

const track = useCleanup();

const STALL_REASON = 'job stalled more than allowable limit';

/** Adds a job with the given side's producer; returns its id. */
const addWith = (side: WorkerSide, queueName: string, name: string, data: unknown) =>
  sideProducer(track, side, queueName).add(name, data);

/** Adds a job, lets a child worker of `side` take it, and kills the child. */
async function jobHeldByDeadWorker(side: WorkerSide, queueName: string): Promise<string> {
  const jobId = await addWith(side, queueName, 'victim', { n: 1 });
  const child = await startChildWorker({
    side,
    queueName,
    port: inject('redisPort'),
    lockDuration: 1000,
    // Its own checker would arm `stalled-check` and hold off the surviving worker's checker.
    skipStalledCheck: true,
  });
  try {
    expect((await child.waitForMessage((m) => m.event === 'active')).jobId).toBe(jobId);
  } finally {
    await child.kill();
  }
  return jobId;
}

describe('stalled recovery', () => {
  for (const dying of ['oxmq', 'bullmq'] as const) {
    const survivor = otherSide(dying);

    it(`${sideLabel(dying)} worker dies holding a job: a ${sideLabel(survivor)} worker recovers and reprocesses it`, async () => {
      const name = uniqueQueueName('stall');
      const redis = track(rawClient());
      const jobId = await jobHeldByDeadWorker(dying, name);
      expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([jobId]);
      // Nobody releases the lock: it must run out by itself.
      await waitFor(async () => (await redis.exists(`bull:${name}:${jobId}:lock`)) === 0, 5_000);
      expect(await redis.lrange(`bull:${name}:active`, 0, -1)).toEqual([jobId]);

      const worker = track(
        startSideWorker(survivor, name, async () => 'recovered', {
          stalledInterval: 300,
          lockDuration: 5_000,
        }),
      );
      await waitFor(() => worker.completed.includes(jobId), 15_000);

      expect(worker.stalled).toEqual([jobId]);
      expect(worker.started).toEqual([jobId]);
      expect(worker.errors).toEqual([]);
      const hash = await redis.hgetall(`bull:${name}:${jobId}`);
      expect(hash.stc).toBe('1');
      expect(hash.ats).toBe('2');
      expect(hash.atm).toBe('1');
      expect(hash.returnvalue).toBe('"recovered"');
      expect(hash.defa).toBeUndefined();
      expect(await redis.zscore(`bull:${name}:completed`, jobId)).toBe(hash.finishedOn);

      // Recovery events: `waiting prev=active` right before `stalled`, then a second `active`.
      const events = (await streamEntries(redis, name)).map((e) => e.fields);
      const stalledAt = events.findIndex((f) => f.event === 'stalled' && f.jobId === jobId);
      expect(stalledAt).toBeGreaterThan(0);
      expect(events[stalledAt - 1]).toEqual({ event: 'waiting', jobId, prev: 'active' });
      expect(events.filter((f) => f.event === 'active' && f.jobId === jobId)).toHaveLength(2);
      expect(events.filter((f) => f.event === 'stalled')).toHaveLength(1);
    });

    it(`maxStalledCount 0: a ${sideLabel(survivor)} checker defers the failure of a dead ${sideLabel(dying)} worker's job and a ${sideLabel(dying)} worker fails it without running the processor`, async () => {
      const name = uniqueQueueName('stall0');
      const redis = track(rawClient());
      const jobId = await jobHeldByDeadWorker(dying, name);
      // Keeps the checker's only slot busy, so the job it puts back is fetched by the other side.
      const blockerId = await addWith(dying, name, 'blocker', {});
      // Waits behind the blocker; the recovered job must be put in front of it (RPUSH).
      const laterId = await addWith(dying, name, 'later', {});
      const release = gate();
      try {
        const checker = track(
          startSideWorker(
            survivor,
            name,
            async (job) => {
              if (job.name === 'blocker') await release.opened;
              return 'ok';
            },
            { concurrency: 1, stalledInterval: 300, maxStalledCount: 0, lockDuration: 5_000 },
          ),
        );
        await waitFor(() => checker.started.includes(blockerId), 10_000);
        await waitFor(() => checker.stalled.length > 0, 15_000);
        expect(await redis.hget(`bull:${name}:${jobId}`, 'defa')).toBe(STALL_REASON);

        expect(checker.stalled).toEqual([jobId]);
        expect(checker.started).toEqual([blockerId]);
        expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toEqual([laterId, jobId]);
        expect(await redis.hget(`bull:${name}:${jobId}`, 'stc')).toBe('1');
        // The checker never fails the job itself (docs/redis-keys.md).
        expect(await redis.zscore(`bull:${name}:failed`, jobId)).toBeNull();

        const processorCalls: string[] = [];
        const fetcher = track(
          startSideWorker(
            dying,
            name,
            async (job) => {
              processorCalls.push(job.id);
              return 'ran';
            },
            { skipStalledCheck: true },
          ),
        );
        await waitFor(() => fetcher.completed.includes(laterId), 10_000);

        // It took the recovered job first and failed it without calling the processor.
        expect(fetcher.started).toEqual([laterId]);
        expect(processorCalls).toEqual([laterId]);
        expect(fetcher.failed).toEqual([{ id: jobId, message: STALL_REASON }]);
        const hash = await redis.hgetall(`bull:${name}:${jobId}`);
        expect(hash.failedReason).toBe(STALL_REASON);
        expect(hash.defa).toBeUndefined();
        expect(hash.returnvalue).toBeUndefined();
        const order = (await streamEntries(redis, name)).map(
          (e) => `${e.fields.event}:${e.fields.jobId}`,
        );
        expect(order.indexOf(`failed:${jobId}`)).toBeLessThan(
          order.lastIndexOf(`active:${laterId}`),
        );
        expect(await eventsNamed(redis, name, 'failed')).toEqual([
          { event: 'failed', jobId, failedReason: STALL_REASON, prev: 'active' },
        ]);

        release.open();
        await waitFor(() => checker.completed.includes(blockerId), 10_000);
        expect(checker.errors).toEqual([]);
        expect(fetcher.errors).toEqual([]);
      } finally {
        // A held job would keep the checker's close() waiting.
        release.open();
      }
    });
  }
});

describe('lock renewal', () => {
  for (const runner of ['oxmq', 'bullmq'] as const) {
    const checkerSide = otherSide(runner);

    it(`${sideLabel(runner)} job running 3× lockDuration is never stalled by a ${sideLabel(checkerSide)} checker`, async () => {
      const name = uniqueQueueName('renew');
      const redis = track(rawClient());
      const jobId = await addWith(runner, name, 'long', {});
      const lockDuration = 1_000;
      const worker = track(
        startSideWorker(
          runner,
          name,
          async () => {
            await sleep(lockDuration * 3.2);
            return 'done';
          },
          // Its own checker would arm `stalled-check` for 30 s and keep the other side's idle.
          { lockDuration, skipStalledCheck: true },
        ),
      );
      await waitFor(() => worker.started.includes(jobId), 10_000);

      const checkerCalls: string[] = [];
      const checker = track(
        startSideWorker(
          checkerSide,
          name,
          async (job) => {
            checkerCalls.push(job.id);
            return null;
          },
          { stalledInterval: 300 },
        ),
      );

      // While the job runs: its lock never disappears, and the checker really runs (each check
      // stamps `stalled-check` with its own time).
      const checks = new Set<string>();
      let lockMissing = 0;
      const deadline = Date.now() + 15_000;
      const settled = () =>
        worker.completed.includes(jobId) ||
        worker.failed.length > 0 ||
        worker.errors.length > 0 ||
        checker.stalled.length > 0;
      while (!settled() && Date.now() < deadline) {
        const [check, lock, active] = await Promise.all([
          redis.get(`bull:${name}:stalled-check`),
          redis.exists(`bull:${name}:${jobId}:lock`),
          redis.lpos(`bull:${name}:active`, jobId),
        ]);
        if (check) checks.add(check);
        if (lock === 0 && active !== null) lockMissing += 1;
        await sleep(50);
      }

      expect(worker.completed).toEqual([jobId]);
      expect(worker.failed).toEqual([]);
      expect(worker.errors).toEqual([]);
      expect(worker.lockRenewalFailed).toEqual([]);
      expect(checks.size).toBeGreaterThanOrEqual(3);
      expect(lockMissing).toBe(0);
      expect(checker.stalled).toEqual([]);
      expect(checkerCalls).toEqual([]);
      expect(checker.errors).toEqual([]);
      const hash = await redis.hgetall(`bull:${name}:${jobId}`);
      expect(hash.stc ?? '0').toBe('0');
      expect(hash.ats).toBe('1');
      expect(hash.atm).toBe('1');
      expect(hash.returnvalue).toBe('"done"');
      expect(await eventsNamed(redis, name, 'stalled')).toEqual([]);
      expect(await redis.zscore(`bull:${name}:completed`, jobId)).toBe(hash.finishedOn);
      expect(await redis.exists(`bull:${name}:${jobId}:lock`)).toBe(0);
    });
  }
});
