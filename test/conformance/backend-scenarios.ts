/**
 * The core of the conformance suite: what any storage behind Queue and Worker must do with one
 * queue's jobs, written against QueueBackend (producers and workers) and QueueOperations (reads
 * and admin moves) alone (engine/backend/). Job hashes are compared by bullmq's field names
 * (docs/redis-keys.md), which every storage's Job reads.
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { fetchJob, sleep, WORKER } from './scenario-helpers';

export const backendScenarios: Scenario[] = [
  {
    title: 'adds, fetches under a lock and completes a job, keeping its return value',
    covers: [
      'QueueBackend.fetchNextJob',
      'QueueBackend.addJob',
      'QueueBackend.finishJob',
      'QueueBackend.getJobHash',
      'QueueOperations.getState',
      'QueueOperations.getCounts',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId, duplicate } = await backend.addJob(newJob({ data: '{"n":1}' }));
      expect(duplicate).toBe(false);
      expect(await ops.getState(jobId)).toBe('waiting');
      const fetched = await fetchJob(backend);
      expect(fetched.jobId).toBe(jobId);
      expect(fetched.hash.data).toBe('{"n":1}');
      expect(await ops.getState(jobId)).toBe('active');
      await backend.finishJob({
        jobId,
        token: WORKER.token,
        outcome: 'completed',
        value: '{"ok":true}',
        keep: { count: -1 },
        attempts: 1,
      });
      expect(await ops.getState(jobId)).toBe('completed');
      expect((await backend.getJobHash(jobId))?.returnvalue).toBe('{"ok":true}');
      expect(await ops.getCounts(['waiting', 'active', 'completed'])).toEqual({
        waiting: 0,
        active: 0,
        completed: 1,
      });
    },
  },
  {
    title: 'refuses to finish a job under another lock token, and leaves it active',
    covers: [
      'QueueBackend.fetchNextJob',
      'QueueBackend.addJob',
      'QueueBackend.finishJob',
      'QueueOperations.getState',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      await fetchJob(backend);
      await expect(
        backend.finishJob({
          jobId,
          token: 'someone-else',
          outcome: 'completed',
          value: 'null',
          keep: { count: -1 },
          attempts: 1,
        }),
      ).rejects.toThrow();
      expect(await ops.getState(jobId)).toBe('active');
    },
  },
  {
    title: 'writes nothing for a custom id that already exists',
    covers: ['QueueBackend.addJob', 'QueueBackend.getJobHash'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const first = await backend.addJob(newJob({ customId: 'same', data: '{"v":1}' }));
      const second = await backend.addJob(newJob({ customId: 'same', data: '{"v":2}' }));
      expect(first).toMatchObject({ jobId: 'same', duplicate: false });
      expect(second).toMatchObject({ jobId: 'same', duplicate: true });
      expect((await backend.getJobHash('same'))?.data).toBe('{"v":1}');
    },
  },
  {
    title: 'hands out jobs by priority, then first in first out, with lifo jumping the line',
    covers: ['QueueBackend.addJobs', 'QueueBackend.fetchNextJob'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const [a, b, c, d] = await backend.addJobs([
        newJob({ name: 'a' }),
        newJob({ name: 'b', priority: 1 }),
        newJob({ name: 'c' }),
        newJob({ name: 'd', lifo: true }),
      ]);
      const order: string[] = [];
      for (let i = 0; i < 4; i++) order.push((await fetchJob(backend)).jobId);
      // Unprioritized jobs go before prioritized ones, as in bullmq.
      expect(order).toEqual([d!.jobId, a!.jobId, c!.jobId, b!.jobId]);
      expect((await backend.fetchNextJob(WORKER)).kind).toBe('none');
    },
  },
  {
    title: 'holds a delayed job until it is due and says when that is; promote releases it',
    covers: [
      'QueueBackend.addJob',
      'QueueBackend.fetchNextJob',
      'QueueOperations.getState',
      'QueueOperations.promoteJob',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const now = Date.now();
      const { jobId } = await backend.addJob(newJob({ timestamp: now, delay: 60_000 }));
      expect(await ops.getState(jobId)).toBe('delayed');
      const none = await backend.fetchNextJob(WORKER);
      expect(none.kind).toBe('none');
      if (none.kind === 'none') {
        expect(none.nextDelayedTs).toBeGreaterThanOrEqual(now + 60_000);
        expect(none.nextDelayedTs).toBeLessThan(now + 61_000);
      }
      await ops.promoteJob(jobId);
      expect((await fetchJob(backend)).jobId).toBe(jobId);
    },
  },
  {
    title: 'retries straight to wait or after a delay, and postpones without an attempt',
    covers: [
      'QueueBackend.fetchNextJob',
      'QueueBackend.addJob',
      'QueueBackend.retryJob',
      'QueueBackend.getJobHash',
      'QueueBackend.postponeJob',
      'QueueOperations.getState',
      'QueueOperations.promoteJob',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      await fetchJob(backend);
      await backend.retryJob({ jobId, token: WORKER.token, delay: 0, lifo: false, fields: {} });
      expect(await ops.getState(jobId)).toBe('waiting');
      await fetchJob(backend);
      await backend.retryJob({
        jobId,
        token: WORKER.token,
        delay: 60_000,
        lifo: false,
        fields: { failedReason: 'try later' },
      });
      expect(await ops.getState(jobId)).toBe('delayed');
      expect((await backend.getJobHash(jobId))?.failedReason).toBe('try later');
      await ops.promoteJob(jobId);
      await fetchJob(backend);
      const attempts = (await backend.getJobHash(jobId))?.atm;
      await backend.postponeJob(jobId, WORKER.token, Date.now() + 60_000);
      expect(await ops.getState(jobId)).toBe('delayed');
      expect((await backend.getJobHash(jobId))?.atm).toBe(attempts);
    },
  },
  {
    title: 'fails a job with its reason, and a keep rule of 0 removes it',
    covers: [
      'QueueBackend.fetchNextJob',
      'QueueBackend.addJobs',
      'QueueBackend.finishJob',
      'QueueBackend.getJobHash',
      'QueueOperations.getState',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const [kept, dropped] = await backend.addJobs([newJob(), newJob()]);
      for (const { jobId } of [kept!, dropped!]) {
        await fetchJob(backend);
        await backend.finishJob({
          jobId,
          token: WORKER.token,
          outcome: 'failed',
          value: 'boom',
          keep: { count: jobId === kept!.jobId ? -1 : 0 },
          attempts: 1,
        });
      }
      expect(await ops.getState(kept!.jobId)).toBe('failed');
      expect((await backend.getJobHash(kept!.jobId))?.failedReason).toBe('boom');
      expect(await backend.getJobHash(dropped!.jobId)).toBeUndefined();
      expect(await ops.getState(dropped!.jobId)).toBe('unknown');
    },
  },
  {
    title: 'finishes a job and hands out the next one in the same call',
    covers: ['QueueBackend.fetchNextJob', 'QueueBackend.addJobs', 'QueueBackend.finishJob'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const [first, second] = await backend.addJobs([newJob(), newJob()]);
      await fetchJob(backend);
      const next = await backend.finishJob({
        jobId: first!.jobId,
        token: WORKER.token,
        outcome: 'completed',
        value: 'null',
        keep: { count: -1 },
        attempts: 1,
        fetchNext: WORKER,
      });
      expect(next).toMatchObject({ kind: 'job', jobId: second!.jobId });
    },
  },
  {
    title: 'hands out nothing while paused, and again once resumed',
    covers: [
      'QueueBackend.addJob',
      'QueueBackend.fetchNextJob',
      'QueueOperations.pause',
      'QueueOperations.isPaused',
      'QueueOperations.resume',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      await ops.pause();
      expect(await ops.isPaused()).toBe(true);
      expect((await backend.fetchNextJob(WORKER)).kind).toBe('none');
      await ops.resume();
      expect((await fetchJob(backend)).jobId).toBe(jobId);
    },
  },
  {
    title: 'applies a worker rate limit and reports how long it holds',
    covers: ['QueueBackend.addJobs', 'QueueBackend.fetchNextJob'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      await backend.addJobs([newJob(), newJob()]);
      const limited = { ...WORKER, limiter: { max: 1, duration: 10_000 } };
      await fetchJob(backend, limited);
      const held = await backend.fetchNextJob(limited);
      expect(held.kind).toBe('none');
      if (held.kind === 'none') {
        expect(held.rateLimitTtl).toBeGreaterThan(0);
        expect(held.rateLimitTtl).toBeLessThanOrEqual(10_000);
      }
    },
  },
  {
    title: 'fetches a batch up to its size and completes it in one call',
    covers: [
      'QueueBackend.addJobs',
      'QueueBackend.fetchJobBatch',
      'QueueBackend.completeJobBatch',
      'QueueOperations.getCounts',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const added = await backend.addJobs([newJob(), newJob(), newJob()]);
      const batch = await backend.fetchJobBatch({
        identity: WORKER,
        batchSize: 2,
        maxBatchBytes: 0,
      });
      expect(batch.kind).toBe('batch');
      if (batch.kind !== 'batch') return;
      expect(batch.jobs.map((job) => job.jobId)).toEqual(added.slice(0, 2).map((a) => a.jobId));
      const done = await backend.completeJobBatch({
        token: WORKER.token,
        jobs: batch.jobs.map((job) => ({ jobId: job.jobId, value: '1', keep: { count: -1 } })),
      });
      expect(done.errors).toEqual([undefined, undefined]);
      expect(await ops.getCounts(['completed', 'waiting'])).toEqual({ completed: 2, waiting: 1 });
    },
  },
  {
    title: 'renews only the locks it holds, and recovers a job whose lock expired',
    covers: [
      'QueueBackend.fetchNextJob',
      'QueueBackend.addJob',
      'QueueBackend.extendLocks',
      'QueueBackend.holdsLock',
      'QueueBackend.recoverStalledJobs',
      'QueueOperations.getState',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      await fetchJob(backend, { token: 'short', lockDuration: 200 });
      expect(await backend.extendLocks([jobId], ['wrong'], 200)).toEqual([jobId]);
      expect(await backend.extendLocks([jobId], ['short'], 200)).toEqual([]);
      expect(await backend.holdsLock(jobId, 'short')).toBe(true);
      expect(await backend.holdsLock(jobId, 'wrong')).toBe(false);
      await sleep(300);
      expect(await backend.holdsLock(jobId, 'short')).toBe(false);
      // Two passes: the first marks active jobs, the second moves those still without a lock.
      // Each pass is throttled by the stalled interval (1 ms here).
      const recovered: string[] = [];
      for (let pass = 0; pass < 3 && recovered.length === 0; pass++) {
        recovered.push(...(await backend.recoverStalledJobs(1, 1)));
        await sleep(5);
      }
      expect(recovered).toEqual([jobId]);
      expect(await ops.getState(jobId)).toBe('waiting');
    },
  },
  {
    title: 'keeps one job per open deduplication window until the window is removed',
    covers: [
      'QueueBackend.addJob',
      'QueueBackend.getDeduplicationJobId',
      'QueueBackend.removeDeduplicationKeyOf',
      'QueueBackend.removeDeduplicationKey',
    ],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const dedup = { id: 'order-7' };
      const first = await backend.addJob(newJob({ deduplication: dedup }));
      const second = await backend.addJob(newJob({ deduplication: dedup }));
      expect(second).toMatchObject({ jobId: first.jobId, deduplicated: true });
      expect(await backend.getDeduplicationJobId('order-7')).toBe(first.jobId);
      expect(await backend.removeDeduplicationKeyOf('order-7', 'not-the-owner')).toBe(0);
      expect(await backend.removeDeduplicationKey('order-7')).toBe(1);
      const third = await backend.addJob(newJob({ deduplication: dedup }));
      expect(third.deduplicated ?? false).toBe(false);
      expect(third.jobId).not.toBe(first.jobId);
    },
  },
  {
    title: 'records progress, logs and new data on the job',
    covers: [
      'QueueBackend.addJob',
      'QueueBackend.updateProgress',
      'QueueBackend.updateData',
      'QueueBackend.addLog',
      'QueueBackend.getJobHash',
      'QueueBackend.clearLogs',
      'QueueOperations.getLogs',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      await backend.updateProgress(jobId, '50');
      await backend.updateData(jobId, '{"changed":true}');
      await backend.addLog(jobId, 'one');
      expect(await backend.addLog(jobId, 'two')).toBe(2);
      const hash = await backend.getJobHash(jobId);
      expect(hash?.progress).toBe('50');
      expect(hash?.data).toBe('{"changed":true}');
      expect(await ops.getLogs(jobId, 0, -1, true)).toEqual({ logs: ['one', 'two'], count: 2 });
      await backend.clearLogs(jobId, 1);
      expect(await ops.getLogs(jobId, 0, -1, true)).toEqual({ logs: ['two'], count: 1 });
    },
  },
  {
    title: 'lists, cleans, drains and obliterates',
    covers: [
      'QueueBackend.fetchNextJob',
      'QueueBackend.addJobs',
      'QueueBackend.finishJob',
      'QueueBackend.addJob',
      'QueueOperations.getJobsInStates',
      'QueueOperations.clean',
      'QueueOperations.getState',
      'QueueOperations.drain',
      'QueueOperations.getCounts',
      'QueueOperations.obliterate',
      'QueueOperations.pause',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const added = await backend.addJobs([newJob(), newJob(), newJob({ delay: 60_000 })]);
      const listed = await ops.getJobsInStates(['waiting'], 0, -1, true);
      expect(listed.map((job) => job.id)).toEqual(added.slice(0, 2).map((a) => a.jobId));
      await fetchJob(backend);
      await backend.finishJob({
        jobId: added[0]!.jobId,
        token: WORKER.token,
        outcome: 'completed',
        value: 'null',
        keep: { count: -1 },
        attempts: 1,
      });
      expect(await ops.clean(0, 100, 'completed')).toEqual([added[0]!.jobId]);
      expect(await ops.getState(added[0]!.jobId)).toBe('unknown');
      await ops.drain(true);
      expect(await ops.getCounts(['waiting', 'delayed'])).toEqual({ waiting: 0, delayed: 0 });
      await backend.addJob(newJob());
      // As with bullmq, only a paused queue can be obliterated.
      await expect(ops.obliterate({ force: false, count: 1000 })).rejects.toThrow(/paused/);
      await ops.pause();
      await ops.obliterate({ force: false, count: 1000 });
      expect(await ops.getCounts(['waiting'])).toEqual({ waiting: 0 });
    },
  },
];
