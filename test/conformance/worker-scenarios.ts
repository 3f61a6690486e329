/**
 * Live workers (WorkerRegistry) and what reaches them: heartbeats keep a worker's record alive,
 * commands wait for its next beat, and a cancel request for a job it holds wakes it at once.
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { fetchJob } from './scenario-helpers';

export const workerScenarios: Scenario[] = [
  {
    title: "keeps a live worker's record, and hands it commands and cancel requests once",
    covers: [
      'WorkerRegistry.beat',
      'WorkerRegistry.listWorkers',
      'WorkerRegistry.commandWorker',
      'WorkerRegistry.remove',
      'QueueOperations.requestJobCancel',
    ],
    run: async ({ made }) => {
      const { backend, ops, workers } = made.queue;
      const workerId = 'conformance-worker';
      const record = { id: workerId, queue: made.keys.queueName, concurrency: '1' };
      expect(await workers.beat(workerId, record, 5_000, Date.now())).toEqual({ cancels: [] });
      expect(await workers.listWorkers()).toEqual([expect.objectContaining(record)]);
      expect(await workers.commandWorker(workerId, 'quiet')).toBe(true);
      expect(await workers.commandWorker('nobody', 'quiet')).toBe(false);

      // A job locked under the worker's token (`<workerId>:<n>`): a cancel request reaches it.
      const { jobId } = await backend.addJob(newJob());
      await fetchJob(backend, { token: `${workerId}:0`, lockDuration: 30_000 });
      const woken = backend.waitForWake(5, workerId);
      expect(await ops.requestJobCancel(jobId, 'stop', { force: true })).toBe('requested');
      expect(await woken).toEqual({ wake: 'cancel' });
      const noted = JSON.parse((await backend.getJobHash(jobId))!['oxmq.cancel']!);
      expect(noted).toMatchObject({ reason: 'stop', attempt: 1 });
      expect(await workers.beat(workerId, record, 5_000, Date.now())).toEqual({
        command: 'quiet',
        cancels: [{ jobId, request: { reason: 'stop', force: true } }],
      });
      expect((await workers.beat(workerId, record, 5_000, Date.now())).cancels).toEqual([]);

      await workers.remove(workerId);
      expect(await workers.listWorkers()).toEqual([]);
      expect(await ops.requestJobCancel(jobId, 'stop')).toBe('held-by-bullmq');
    },
  },
  {
    title: 'forgets a worker whose record outlived its lifetime without a beat',
    covers: ['WorkerRegistry.beat', 'WorkerRegistry.listWorkers'],
    run: async ({ made }) => {
      const { workers } = made.queue;
      await workers.beat('short-lived', { id: 'short-lived' }, 100, Date.now());
      expect(await workers.listWorkers()).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await workers.listWorkers()).toEqual([]);
      expect(await workers.commandWorker('short-lived', 'resume')).toBe(false);
    },
  },
];
