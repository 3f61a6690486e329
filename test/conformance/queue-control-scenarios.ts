/**
 * Queue-wide settings and reads (QueueBackend, QueueOperations): the meta, global concurrency
 * and rate limits, the manual rate limit, the event log's length, cancel requests and the
 * per-minute metrics.
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { fetchJob, WORKER } from './scenario-helpers';

export const queueControlScenarios: Scenario[] = [
  {
    title: "writes and reads the queue's meta",
    covers: ['QueueBackend.writeQueueMeta', 'QueueOperations.getMeta'],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      await backend.writeQueueMeta({ 'opts.maxLenEvents': '500', version: 'oxmq:test' });
      expect(await ops.getMeta()).toMatchObject({
        'opts.maxLenEvents': '500',
        version: 'oxmq:test',
      });
    },
  },
  {
    title: 'holds jobs back at the global concurrency, and says when the queue is maxed',
    covers: ['QueueOperations.setGlobalConcurrency', 'QueueOperations.isMaxed'],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      await backend.addJobs([newJob(), newJob()]);
      await ops.setGlobalConcurrency(1);
      expect((await ops.getMeta()).concurrency).toBe('1');
      expect(await ops.isMaxed()).toBe(false);
      await fetchJob(backend);
      expect(await ops.isMaxed()).toBe(true);
      const held = await backend.fetchNextJob({ ...WORKER, token: 'token-2' });
      expect(held).toMatchObject({ kind: 'none', held: true });
      await ops.setGlobalConcurrency(undefined);
      expect(await ops.isMaxed()).toBe(false);
      await fetchJob(backend, { ...WORKER, token: 'token-2' });
    },
  },
  {
    title: 'applies a queue-wide and a manual rate limit, and ends a window on demand',
    covers: [
      'QueueOperations.setGlobalRateLimit',
      'QueueOperations.rateLimit',
      'QueueOperations.getRateLimitTtl',
      'QueueOperations.removeRateLimitKey',
    ],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      await backend.addJobs([newJob(), newJob(), newJob()]);
      await ops.setGlobalRateLimit({ max: 1, duration: 10_000 });
      expect(await ops.getMeta()).toMatchObject({ max: '1', duration: '10000' });
      await fetchJob(backend);
      const held = await backend.fetchNextJob(WORKER);
      expect(held.kind).toBe('none');
      if (held.kind === 'none') expect(held.rateLimitTtl).toBeGreaterThan(0);
      expect(await ops.getRateLimitTtl()).toBeGreaterThan(0);
      expect(await ops.removeRateLimitKey()).toBe(1);
      expect(await ops.getRateLimitTtl()).toBe(0);
      await ops.setGlobalRateLimit(undefined);
      expect((await ops.getMeta()).max).toBeUndefined();
      await fetchJob(backend);

      // A manual rate limit holds every worker with a limiter, whatever its max.
      await ops.rateLimit(5_000);
      expect(await ops.getRateLimitTtl()).toBeGreaterThan(4_000);
      expect(await ops.getRateLimitTtl(10)).toBeGreaterThan(4_000);
      const limited = { ...WORKER, limiter: { max: 10, duration: 1_000 } };
      const none = await backend.fetchNextJob(limited);
      expect(none.kind).toBe('none');
      if (none.kind === 'none') expect(none.rateLimitTtl).toBeGreaterThan(4_000);
      expect(await ops.removeRateLimitKey()).toBe(1);
      expect(await ops.removeRateLimitKey()).toBe(0);
      expect(await ops.getRateLimitTtl()).toBe(-2);
      await fetchJob(backend, limited);
    },
  },
  {
    title: 'trims the event log to about a length, dropping the oldest entries',
    covers: ['QueueOperations.trimEvents'],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      // Redis trims whole stream nodes (100 entries by default): enough entries for several.
      const added = await backend.addJobs(Array.from({ length: 300 }, () => newJob()));
      const dropped = await ops.trimEvents(10);
      expect(dropped).toBeGreaterThan(0);
      const left = await made.events.read('0-0', 100);
      expect(left.length).toBe(600 - dropped);
      expect(left.length).toBeGreaterThanOrEqual(10);
      const last = left.at(-1)![1];
      expect(last).toEqual(['event', 'waiting', 'jobId', added.at(-1)!.jobId]);
    },
  },
  {
    title: 'has nothing to cancel without an active job held by a live worker; notes outcomes',
    covers: ['QueueOperations.requestJobCancel', 'QueueBackend.noteCancelOutcome'],
    run: async ({ made }) => {
      const { backend, ops } = made.queue;
      const { jobId } = await backend.addJob(newJob());
      expect(await ops.requestJobCancel(jobId, 'stop')).toBe('not-active');
      // Locked under a token that names no live OxMQ worker (as a bullmq worker's would).
      await fetchJob(backend);
      expect(await ops.requestJobCancel(jobId, 'stop')).toBe('held-by-bullmq');
      expect(await ops.requestJobCancel('missing', 'stop')).toBe('not-active');

      // How a cancel ended goes to the log, for the job's timeline.
      const before = await made.events.lastId();
      await backend.noteCancelOutcome(jobId, 'force-stopped');
      await backend.noteCancelOutcome(jobId, 'completed-anyway');
      const noted = (await made.events.read(before, 100)).map(([, fields]) => fields);
      expect(noted).toEqual([
        ['event', 'cancelled', 'jobId', jobId, 'outcome', 'force-stopped'],
        ['event', 'cancel-ignored', 'jobId', jobId, 'outcome', 'completed-anyway'],
      ]);
    },
  },
  {
    title: 'counts completions and failures per minute when asked to',
    covers: ['QueueBackend.getMetrics'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      await backend.addJobs([newJob(), newJob(), newJob()]);
      const finish = async (outcome: 'completed' | 'failed', metrics?: number) => {
        const { jobId } = await fetchJob(backend);
        await backend.finishJob({
          jobId,
          token: WORKER.token,
          outcome,
          value: 'x',
          keep: { count: -1 },
          attempts: 1,
          metricsMaxDataPoints: metrics,
        });
      };
      await finish('completed', 60);
      await finish('failed', 60);
      await finish('completed');
      const completed = await backend.getMetrics('completed', 0, -1);
      expect(completed.meta.count).toBe(1);
      expect(completed.meta.prevTS).toBeGreaterThan(0);
      expect(completed.data).toEqual([]);
      expect((await backend.getMetrics('failed', 0, -1)).meta.count).toBe(1);
    },
  },
];
