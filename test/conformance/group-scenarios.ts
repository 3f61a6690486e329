/**
 * Tenant groups (GroupOperations): settings and defaults and how they read back, and how a
 * group's line runs under its concurrency and pause.
 */
import { expect } from 'vitest';
import { newJob } from '../helpers/new-job';
import type { Scenario } from './harness';
import { complete, fetchJob, WORKER } from './scenario-helpers';

const noLimits = { waiting: 0, active: 0, paused: false, concurrency: null, rateLimit: null };

export const groupScenarios: Scenario[] = [
  {
    title: "keeps each group's settings over the queue's defaults, and lists the groups",
    covers: [
      'GroupOperations.setGroupDefaults',
      'GroupOperations.getGroupDefaults',
      'GroupOperations.setGroupConcurrency',
      'GroupOperations.setGroupRateLimit',
      'GroupOperations.setGroupPaused',
      'GroupOperations.getGroups',
      'GroupOperations.listGroupIds',
    ],
    run: async ({ made }) => {
      const { groups } = made.queue;
      const defaults = { concurrency: 3, rateLimit: { max: 10, duration: 1_000 } };
      await groups.setGroupDefaults(defaults);
      expect(await groups.getGroupDefaults()).toEqual(defaults);
      await groups.setGroupConcurrency('g1', 1);
      await groups.setGroupRateLimit('g2', { max: 2, duration: 5_000 });
      await groups.setGroupPaused('g3', true);
      expect(await groups.getGroups(['g1', 'g2', 'g3'])).toEqual([
        { ...noLimits, id: 'g1', concurrency: 1, rateLimit: defaults.rateLimit, rateLimitTtl: 0 },
        {
          ...noLimits,
          id: 'g2',
          concurrency: 3,
          rateLimit: { max: 2, duration: 5_000 },
          rateLimitTtl: 0,
        },
        {
          ...noLimits,
          id: 'g3',
          paused: true,
          concurrency: 3,
          rateLimit: defaults.rateLimit,
          rateLimitTtl: 0,
        },
      ]);
      expect(await groups.listGroupIds('', 2)).toEqual({ ids: ['g1', 'g2'], cursor: 'g2' });
      expect(await groups.listGroupIds('g2', 2)).toEqual({ ids: ['g3'], cursor: '' });

      await groups.setGroupDefaults({ concurrency: null, rateLimit: null });
      await groups.setGroupConcurrency('g1', undefined);
      await groups.setGroupRateLimit('g2', undefined);
      await groups.setGroupPaused('g3', false);
      expect(await groups.getGroupDefaults()).toEqual({ concurrency: null, rateLimit: null });
      expect(await groups.getGroups(['g1', 'g2', 'g3'])).toEqual(
        ['g1', 'g2', 'g3'].map((id) => ({ ...noLimits, id, rateLimitTtl: 0 })),
      );
    },
  },
  {
    title: "runs a group's line in order, within its concurrency, and skips it while paused",
    covers: ['GroupOperations.getGroupJobs'],
    run: async ({ made }) => {
      const { backend, ops, groups } = made.queue;
      const [a1, a2, b1] = (
        await backend.addJobs([
          newJob({ groupId: 'g1' }),
          newJob({ groupId: 'g1' }),
          newJob({ groupId: 'g2' }),
        ])
      ).map((added) => added.jobId);
      expect((await groups.getGroupJobs('g1', 0, -1)).map((row) => row.id)).toEqual([a1, a2]);
      expect((await groups.getGroupJobs('g1', 1, 1)).map((row) => row.id)).toEqual([a2]);
      expect(await ops.getCounts(['waiting'])).toEqual({ waiting: 3 });
      await groups.setGroupConcurrency('g1', 1);
      await groups.setGroupPaused('g2', true);
      expect((await fetchJob(backend)).jobId).toBe(a1);
      expect((await backend.fetchNextJob({ ...WORKER, token: 'token-2' })).kind).toBe('none');
      expect(await groups.getGroups(['g1'])).toMatchObject([{ waiting: 1, active: 1 }]);

      await groups.setGroupPaused('g2', false);
      expect((await fetchJob(backend, { ...WORKER, token: 'token-2' })).jobId).toBe(b1);
      await complete(backend, a1!);
      expect((await fetchJob(backend)).jobId).toBe(a2);
      expect(await ops.getCounts(['waiting', 'active'])).toEqual({ waiting: 0, active: 2 });
    },
  },
];
