/**
 * A parent's children (QueueOperations): what each child's outcome leaves in its parent's
 * records, the reads of those records, parking a running job until its children finish, and
 * letting children go.
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { complete, fail, fetchJob, flowOf, queueOf, runNext, WORKER } from './scenario-helpers';

export const dependencyScenarios: Scenario[] = [
  {
    title: "records each child's outcome in its parent by the child's flags, and reads them back",
    covers: [
      'QueueOperations.getDependencies',
      'QueueOperations.getProcessedChildren',
      'QueueOperations.getIgnoredChildrenFailures',
      'QueueOperations.getDependencyCounts',
      'QueueOperations.getDependencyPages',
    ],
    run: async ({ made }) => {
      const { keys } = made;
      const { backend, ops } = made.queue;
      const link = { id: 'P', queueKey: keys.queueKey };
      const child = (id: string, flags: object = {}) => ({
        queue: queueOf(keys),
        job: newJob({
          customId: `P-${id}`,
          parent: { key: keys.job('P'), link: { ...link, ...flags } },
        }),
        external: false,
        flow: 0,
      });
      await made.flows.addFlows(
        [
          {
            queue: queueOf(keys),
            job: newJob({ customId: 'P', asParent: true }),
            external: false,
            flow: 0,
          },
          child('a'),
          // ignoreDependencyOnFailure, failParentOnFailure
          child('b', { idof: true }),
          child('c', { fpof: true }),
          child('d'),
        ],
        Date.now(),
      );
      await complete(backend, (await fetchJob(backend)).jobId, '"A"');
      await fail(backend, (await fetchJob(backend)).jobId, 'b broke');
      await fail(backend, (await fetchJob(backend)).jobId, 'c broke');

      const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => keys.job(`P-${id}`));
      expect(await ops.getDependencies('P')).toEqual({
        processed: [[a, '"A"']],
        unprocessed: [d],
        ignored: [[b, 'b broke']],
        failed: [c],
      });
      expect(await ops.getProcessedChildren('P')).toEqual({ [a!]: '"A"' });
      expect(await ops.getIgnoredChildrenFailures('P')).toEqual({ [b!]: 'b broke' });
      expect(
        await ops.getDependencyCounts('P', ['processed', 'unprocessed', 'ignored', 'failed']),
      ).toEqual([1, 1, 1, 1]);
      const pages = await ops.getDependencyPages('P', {
        processed: { cursor: 0, count: 10 },
        failed: { cursor: 0, count: 10 },
      });
      expect(pages).toEqual({
        processed: { next: 0, entries: [[a, '"A"']] },
        failed: { next: 0, keys: [c] },
      });
      // The failed child failed its parent: it is released to be failed without running.
      expect((await backend.getJobHash('P'))?.defa).toMatch(/failed/);
      expect(await ops.getState('P')).toBe('waiting');
    },
  },
  {
    title: 'parks a running job until its children finish, and lets a child go',
    covers: ['QueueOperations.moveToWaitingChildren', 'QueueOperations.removeChildDependency'],
    run: async ({ made }) => {
      const { keys } = made;
      const { backend, ops } = made.queue;
      const { jobId: x } = await backend.addJob(newJob({ name: 'x' }));
      await fetchJob(backend);
      // Nothing pending: the job stays active.
      expect(await ops.moveToWaitingChildren(x, WORKER.token)).toBe(false);
      expect(await ops.getState(x)).toBe('active');
      const link = { id: x, queueKey: keys.queueKey };
      const { jobId: y } = await backend.addJob(
        newJob({ name: 'y', parent: { key: keys.job(x), link } }),
      );
      await expect(ops.moveToWaitingChildren(x, 'not-the-owner')).rejects.toThrow();
      expect(await ops.moveToWaitingChildren(x, WORKER.token)).toBe(true);
      expect(await ops.getState(x)).toBe('waiting-children');
      expect(await ops.removeChildDependency(y)).toBe(true);
      // Its last pending child gone, the parent runs.
      expect(await ops.getState(x)).toBe('waiting');
      expect((await backend.getJobHash(y))?.parentKey).toBeUndefined();
      expect(await ops.removeChildDependency(y)).toBe(false);
    },
  },
  {
    title: "lists a parent's children a page at a time, and removes the pending ones",
    covers: ['QueueOperations.getDependencyListing', 'QueueOperations.removeUnprocessedChildren'],
    run: async ({ made }) => {
      const { keys } = made;
      const { backend, ops } = made.queue;
      await made.flows.addFlows(flowOf(keys, 'L'), Date.now());
      expect(await runNext(backend, '{"x":1}')).toBe('L-a');
      const processed = await ops.getDependencyListing('L', 'processed', 0, -1);
      expect(processed.total).toBe(1);
      expect(processed.items).toEqual([{ id: keys.job('L-a'), v: { x: 1 } }]);
      expect(processed.jobs.map((job) => job.id)).toEqual(['L-a']);
      const pending = await ops.getDependencyListing('L', 'pending', 0, -1);
      expect(pending).toMatchObject({ total: 1, items: [{ id: keys.job('L-b') }] });
      expect((await ops.getDependencyListing('L', 'pending', 1, -1)).items).toEqual([]);

      expect(await ops.removeUnprocessedChildren('L')).toBe(1);
      expect(await backend.getJobHash('L-b')).toBeUndefined();
      expect(await ops.getState('L')).toBe('waiting');
    },
  },
];
