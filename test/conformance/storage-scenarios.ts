/**
 * The rest of the storage conformance suite (engine/backend/storage.ts): flows across queues
 * (FlowStorage), job schedulers (SchedulerStorage, driven through the engine's JobScheduler as
 * a Queue drives it) and the event log (EventLogReader).
 */
import { expect } from 'vitest';
import { JobScheduler, readFlow } from 'oxmq/internals';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { fieldsOf, flowOf, queueOf, scopeOf } from './scenario-helpers';

export const storageScenarios: Scenario[] = [
  {
    title: 'writes a flow at once: the parent waits for its children, which wait to run',
    covers: ['QueueOperations.getState', 'FlowStorage.addFlows'],
    run: async ({ made }) => {
      const outcomes = await made.flows.addFlows(flowOf(made.keys, 'p1'), Date.now());
      expect(outcomes).toEqual([{ id: 'p1' }, { id: 'p1-a' }, { id: 'p1-b' }]);
      expect(await made.queue.ops.getState('p1')).toBe('waiting-children');
      expect(await made.queue.ops.getState('p1-a')).toBe('waiting');
      expect(await made.queue.ops.getState('p1-b')).toBe('waiting');
    },
  },
  {
    title: 'reads a flow back as a bounded tree of stored jobs',
    covers: ['FlowStorage.addFlows', 'FlowStorage.readTree'],
    run: async ({ made }) => {
      await made.flows.addFlows(flowOf(made.keys, 'p2'), Date.now());
      const root = {
        key: made.keys.job('p2'),
        prefix: made.keys.prefix,
        queueName: made.keys.queueName,
        id: 'p2',
      };
      const tree = await made.flows.readTree(root, 2, 10);
      expect(tree?.hash.name).toBe('parent');
      expect(tree?.children?.map((child) => child.hash.name).sort()).toEqual([
        'child-a',
        'child-b',
      ]);
      // One level: the root alone, without a children field.
      expect((await made.flows.readTree(root, 1, 10))?.children).toBeUndefined();
      // At most maxChildren per node.
      expect((await made.flows.readTree(root, 2, 1))?.children).toHaveLength(1);
      const missing = { ...root, key: made.keys.job('nope'), id: 'nope' };
      expect(await made.flows.readTree(missing, 2, 10)).toBeUndefined();
      // The engine's reader turns the stored tree into Jobs.
      const node = await readFlow(made.flows, () => scopeOf(made), {
        id: 'p2',
        queueName: made.keys.queueName,
        prefix: made.keys.prefix,
      });
      expect(node?.job.name).toBe('parent');
      expect(node?.children).toHaveLength(2);
    },
  },
  {
    title: 'refuses a flow under a parent that does not exist, writing none of it',
    covers: ['QueueBackend.getJobHash', 'FlowStorage.addFlows'],
    run: async ({ made }) => {
      const ghost = { id: 'ghost', queueKey: made.keys.queueKey };
      const outcomes = await made.flows.addFlows(
        [
          {
            queue: queueOf(made.keys),
            job: newJob({
              customId: 'orphan',
              asParent: true,
              parent: { key: made.keys.job('ghost'), link: ghost },
            }),
            external: true,
            flow: 0,
          },
          {
            queue: queueOf(made.keys),
            job: newJob({
              customId: 'orphan-child',
              parent: {
                key: made.keys.job('orphan'),
                link: { id: 'orphan', queueKey: made.keys.queueKey },
              },
            }),
            external: false,
            flow: 0,
          },
        ],
        Date.now(),
      );
      expect(outcomes[0]).toEqual({ refusal: 'parent-missing', culprit: 0 });
      expect(await made.queue.backend.getJobHash('orphan')).toBeUndefined();
      expect(await made.queue.backend.getJobHash('orphan-child')).toBeUndefined();
    },
  },
  {
    title: 'keeps a job scheduler: its definition, next run, pending iteration, pause and removal',
    covers: [
      'QueueBackend.getJobHash',
      'QueueOperations.getState',
      'SchedulerStorage.count',
      'SchedulerStorage.isScheduler',
      'SchedulerStorage.get',
      'SchedulerStorage.range',
      'SchedulerStorage.pause',
      'SchedulerStorage.remove',
      'SchedulerStorage.upsert',
      'SchedulerStorage.definition',
    ],
    run: async ({ made }) => {
      const schedulers = new JobScheduler(made.queue.schedulers, scopeOf(made));
      const before = Date.now();
      const first = await schedulers.upsertJobScheduler(
        'tick',
        { every: 60_000 },
        { name: 'tick' },
      );
      expect(await made.queue.ops.getState(first.id!)).toMatch(/^(waiting|delayed)$/);
      expect(await made.queue.schedulers.count()).toBe(1);
      expect(await made.queue.schedulers.isScheduler('tick')).toBe(true);
      const stored = await made.queue.schedulers.get('tick');
      expect(stored?.hash.every).toBe('60000');
      expect((await made.queue.schedulers.definition('tick')).every).toBe('60000');
      expect(await made.queue.schedulers.definition('nope')).toEqual({});
      expect(stored?.next).toBeGreaterThanOrEqual(before - 60_000);
      expect((await made.queue.schedulers.range(0, -1, true)).map((row) => row.id)).toEqual([
        'tick',
      ]);

      expect(await made.queue.schedulers.pause('tick', Date.now())).toBe('paused');
      expect(await made.queue.schedulers.pause('tick', Date.now())).toBe('already-paused');
      expect(await made.queue.backend.getJobHash(first.id!)).toBeUndefined();
      expect(await made.queue.schedulers.pause('nope', Date.now())).toBe('missing');

      expect(await made.queue.schedulers.remove('tick')).toBe(true);
      expect(await made.queue.schedulers.remove('tick')).toBe(false);
      expect(await made.queue.schedulers.get('tick')).toBeUndefined();
      expect(await made.queue.schedulers.count()).toBe(0);
    },
  },
  {
    title: "creates a scheduler's next iteration once, from the current one only",
    covers: ['SchedulerStorage.upsert', 'SchedulerStorage.nextIteration'],
    run: async ({ made }) => {
      const schedulers = new JobScheduler(made.queue.schedulers, scopeOf(made));
      const first = await schedulers.upsertJobScheduler(
        'beat',
        { every: 60_000 },
        { name: 'beat' },
      );
      const outcomes = await Promise.all([1, 2, 3].map(() => schedulers.nextIteration(first)));
      expect(outcomes.filter((outcome) => outcome?.created)).toHaveLength(1);
      expect(outcomes.filter((o) => o && !o.created && o.reason === 'not-current')).toHaveLength(2);
    },
  },
  {
    title: 'reads the event log in order after a known id, and waits a bounded time for more',
    covers: [
      'QueueBackend.addJob',
      'EventLogReader.ping',
      'EventLogReader.lastId',
      'EventLogReader.read',
    ],
    run: async ({ made }) => {
      await made.events.ping();
      const start = await made.events.lastId();
      const { jobId } = await made.queue.backend.addJob(newJob({ name: 'logged' }));
      const entries = await made.events.read(start, 1_000);
      const added = entries.map(([, fields]) => fieldsOf(fields)).find((f) => f.event === 'added');
      expect(added).toMatchObject({ event: 'added', jobId, name: 'logged' });
      const last = entries.at(-1)![0];
      expect(await made.events.lastId()).toBe(last);
      // Nothing after the last entry: the read ends empty once its wait is over.
      const waited = Date.now();
      expect(await made.events.read(last, 200)).toEqual([]);
      expect(Date.now() - waited).toBeGreaterThanOrEqual(150);
    },
  },
  {
    title: 'takes custom events into the log, keeping about the newest ones asked for',
    covers: ['QueueBackend.publishEvent'],
    run: async ({ made }) => {
      const { backend } = made.queue;
      const start = await made.events.lastId();
      await backend.publishEvent(['event', 'custom', 'n', '1'], 1_000);
      await backend.publishEvent(['event', 'custom', 'n', '2'], 1_000);
      const entries = await made.events.read(start, 100);
      expect(entries.map(([, fields]) => fields)).toEqual([
        ['event', 'custom', 'n', '1'],
        ['event', 'custom', 'n', '2'],
      ]);
    },
  },
];
