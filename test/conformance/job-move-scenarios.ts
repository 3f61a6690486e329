/**
 * Admin moves of jobs between states (QueueOperations): removal, retries, promotion, changes
 * of delay and priority, and the reads that show where jobs went (ranges, per-priority and
 * delayed counts).
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { complete, fail, fetchJob, flowOf, WORKER } from './scenario-helpers';

export const jobMoveScenarios: Scenario[] = [
  {
    title: 'removes a job, with its children its descendants, and leaves a locked job alone',
    covers: ['QueueOperations.removeJob'],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      expect(await ops.removeJob(jobId, false)).toBe(1);
      expect(await backend.getJobHash(jobId)).toBeUndefined();
      const { jobId: held } = await backend.addJob(newJob());
      await fetchJob(backend);
      expect(await ops.removeJob(held, false)).toBe(0);
      expect(await ops.getState(held)).toBe('active');

      await made.flows.addFlows(flowOf(made.keys, 'tree'), Date.now());
      expect(await ops.removeJob('tree', true)).toBe(1);
      for (const id of ['tree', 'tree-a', 'tree-b']) {
        expect(await backend.getJobHash(id)).toBeUndefined();
      }
    },
  },
  {
    title: 'retries finished jobs back to wait without their outcome, in bulk or one by one',
    covers: ['QueueOperations.retryJobs', 'QueueOperations.reprocessJob'],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const [a, b, c] = (await backend.addJobs([newJob(), newJob(), newJob()])).map(
        (added) => added.jobId,
      );
      for (const id of [a!, b!])
        await fail(backend, (await fetchJob(backend)).jobId, `${id} broke`);
      await complete(backend, (await fetchJob(backend)).jobId, '"done"');

      // Only jobs finished at or before the timestamp go back.
      await ops.retryJobs('failed', 10, 0);
      expect(await ops.getCounts(['failed'])).toEqual({ failed: 2 });
      await ops.retryJobs('failed', 10, Date.now());
      expect(await ops.getCounts(['failed', 'waiting'])).toEqual({ failed: 0, waiting: 2 });
      const retried = await backend.getJobHash(a!);
      expect(retried?.failedReason).toBeUndefined();
      expect(retried?.finishedOn).toBeUndefined();

      await expect(
        ops.reprocessJob(a!, 'completed', {
          lifo: false,
          resetAttemptsMade: false,
          resetAttemptsStarted: false,
        }),
      ).rejects.toThrow();
      await ops.reprocessJob(c!, 'completed', {
        lifo: true,
        resetAttemptsMade: true,
        resetAttemptsStarted: false,
      });
      const reprocessed = await backend.getJobHash(c!);
      expect(reprocessed?.returnvalue).toBeUndefined();
      expect(reprocessed?.atm).toBeUndefined();
      expect(reprocessed?.ats).toBe('1');
      // lifo: first in line, ahead of the retried ones.
      expect((await fetchJob(backend)).jobId).toBe(c);
    },
  },
  {
    title: "promotes delayed jobs in due order, and moves a delayed job's due time",
    covers: [
      'QueueOperations.promoteJobs',
      'QueueOperations.changeDelay',
      'QueueOperations.getDelayedCount',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const now = Date.now();
      const [d1, d2, d3] = (
        await backend.addJobs(
          [60_000, 120_000, 180_000].map((delay) => newJob({ timestamp: now, delay })),
        )
      ).map((added) => added.jobId);
      expect(await ops.getDelayedCount()).toBe(3);
      expect(await ops.getDelayedCount(now + 90_000)).toBe(1);
      await ops.changeDelay(d3!, 5_000);
      expect(await ops.getDelayedCount(now + 90_000)).toBe(2);
      const none = await backend.fetchNextJob(WORKER);
      expect(none.kind).toBe('none');
      if (none.kind === 'none') {
        expect(none.nextDelayedTs).toBeGreaterThanOrEqual(now + 5_000);
        expect(none.nextDelayedTs).toBeLessThan(now + 60_000);
      }
      await ops.promoteJobs(100);
      expect(await ops.getCounts(['delayed', 'waiting'])).toEqual({ delayed: 0, waiting: 3 });
      const waiting = await ops.getJobsInStates(['waiting'], 0, -1, true);
      expect(waiting.map((job) => job.id)).toEqual([d3, d1, d2]);
      await expect(ops.changeDelay(d1!, 10)).rejects.toThrow();
    },
  },
  {
    title: 'requeues a waiting job under a new priority, and puts an active job back in front',
    covers: [
      'QueueOperations.changePriority',
      'QueueOperations.getCountsPerPriority',
      'QueueOperations.getRanges',
      'QueueBackend.moveActiveJobToWait',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const [a, b, c] = (await backend.addJobs([newJob(), newJob(), newJob({ priority: 5 })])).map(
        (added) => added.jobId,
      );
      expect(await ops.getCountsPerPriority([0, 5, 7])).toEqual({ 0: 2, 5: 1, 7: 0 });
      await ops.changePriority(a!, 7, false);
      expect(await ops.getCountsPerPriority([0, 5, 7])).toEqual({ 0: 1, 5: 1, 7: 1 });
      expect(await ops.getState(a!)).toBe('prioritized');
      // Each state's own order: wait, then prioritized by priority.
      expect(await ops.getRanges(['waiting', 'prioritized'], 0, -1, true)).toEqual([b, c, a]);
      expect(await ops.getRanges(['waiting', 'prioritized'], 0, -1, false)).toEqual([b, a, c]);
      expect(await ops.getRanges(['prioritized'], 0, 0, true)).toEqual([c]);

      expect((await fetchJob(backend)).jobId).toBe(b);
      expect(await backend.moveActiveJobToWait(b!, WORKER.token)).toBe(0);
      expect(await ops.getState(b!)).toBe('waiting');
      expect((await fetchJob(backend)).jobId).toBe(b);
      await expect(backend.moveActiveJobToWait(b!, 'not-the-owner')).rejects.toThrow();
    },
  },
];
