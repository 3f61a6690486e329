/**
 * Every job of a tenant group is in a state a reader can see: waiting grouped jobs (in their
 * group's line) count and list as `waiting`, delayed ones (in `Q group-delayed`) as `delayed`,
 * through getJobCounts, the count getters, getJobs, getRanges, getCountsPerPriority and
 * getDelayedCount, with pages that walk the plain wait list and then each group's line in id
 * order. Queues without groups read exactly as before.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, ValidationError, Worker } from 'oxmq';
import {
  collectConsoleMetrics,
  diagnoseQueue,
  exportQueuePrometheusMetrics,
  getQueueOverview,
} from 'oxmq/admin';
import { listJobs, searchJobs } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const client = rawClient();
afterAll(() => client.quit());

/** bullmq_job_count of one state of one queue in a Prometheus text. */
function jobCount(text: string, queue: string, state: string): number | undefined {
  const sample = parsePrometheusText(text).samples.find(
    (s) => s.name === 'bullmq_job_count' && s.labels.queue === queue && s.labels.state === state,
  );
  return sample === undefined ? undefined : Number(sample.value);
}

function newQueue(label: string): Queue {
  return track(new Queue(uniqueQueueName(label), { connection: redisOptions() }));
}

/** 2 plain jobs, then 3 jobs in each of tenant-b and tenant-a (added interleaved), 2 delayed. */
async function fillMixed(queue: Queue) {
  const plain = [await queue.add('plain', { n: 0 }), await queue.add('plain', { n: 1 })];
  const grouped: Record<string, string[]> = { 'tenant-a': [], 'tenant-b': [] };
  for (let n = 0; n < 3; n++) {
    for (const gid of ['tenant-b', 'tenant-a']) {
      const job = await queue.add('grouped', { gid, n }, { group: { id: gid } });
      grouped[gid]!.push(job.id!);
    }
  }
  const delayedGrouped = await queue.add('later', {}, { group: { id: 'tenant-a' }, delay: 60_000 });
  const delayedPlain = await queue.add('later', {}, { delay: 30_000 });
  return {
    plain: plain.map((job) => job.id!),
    grouped,
    delayedGrouped: delayedGrouped.id!,
    delayedPlain: delayedPlain.id!,
  };
}

describe('grouped jobs in the queue-wide states', () => {
  it('counts waiting and delayed grouped jobs with their state', async () => {
    const queue = newQueue('gvis-counts');
    await fillMixed(queue);
    expect(await queue.getJobCounts('waiting', 'delayed', 'active')).toEqual({
      waiting: 8,
      delayed: 2,
      active: 0,
    });
    expect((await queue.getJobCounts()).waiting).toBe(8);
    expect(await queue.getJobCounts('wait')).toEqual({ wait: 8 });
    expect(await queue.getWaitingCount()).toBe(8);
    expect(await queue.getDelayedCount()).toBe(2);
    expect(await queue.getDelayedCount(Date.now() + 45_000)).toBe(1);
    expect(await queue.count()).toBe(10);
    expect(await queue.getCountsPerPriority([0, 1])).toEqual({ '0': 8, '1': 0 });
  });

  it('lists waiting jobs: the plain wait list, then each group line in id order', async () => {
    const queue = newQueue('gvis-list');
    const ids = await fillMixed(queue);
    // Oldest first: the plain line's next to run first, then tenant-a's, then tenant-b's.
    const oldestFirst = [...ids.plain, ...ids.grouped['tenant-a']!, ...ids.grouped['tenant-b']!];
    const asc = await queue.getJobs(['waiting'], 0, -1, true);
    expect(asc.map((job) => job.id)).toEqual(oldestFirst);
    // Newest first reads every line from its head, in the same line order.
    const desc = await queue.getJobs(['waiting'], 0, -1, false);
    expect(desc.map((job) => job.id)).toEqual([
      ...[...ids.plain].reverse(),
      ...[...ids.grouped['tenant-a']!].reverse(),
      ...[...ids.grouped['tenant-b']!].reverse(),
    ]);
    // Pages across line boundaries add up to the whole listing.
    const pages: string[] = [];
    for (let start = 0; start < 8; start += 3) {
      const page = await queue.getJobs(['waiting'], start, start + 2, true);
      pages.push(...page.map((job) => job.id!));
    }
    expect(pages).toEqual(oldestFirst);
    expect(await queue.getRanges(['waiting'], 1, 3, true)).toEqual(oldestFirst.slice(1, 4));
    expect(await queue.getRanges(['waiting'], -2, -1, true)).toEqual(oldestFirst.slice(-2));
  });

  it('lists delayed jobs of both kinds by due time', async () => {
    const queue = newQueue('gvis-delayed');
    const ids = await fillMixed(queue);
    const asc = await queue.getJobs(['delayed'], 0, -1, true);
    expect(asc.map((job) => job.id)).toEqual([ids.delayedPlain, ids.delayedGrouped]);
    const desc = await queue.getJobs(['delayed'], 0, 0, false);
    expect(desc.map((job) => job.id)).toEqual([ids.delayedGrouped]);
    expect(await queue.getRanges('delayed', 1, 1, true)).toEqual([ids.delayedGrouped]);
    expect(await queue.getJob(ids.delayedGrouped).then((job) => job!.getState())).toBe('delayed');
  });

  it('counts each job once while workers take grouped jobs', async () => {
    const queue = newQueue('gvis-moving');
    await fillMixed(queue);
    let release: () => void = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    const worker = track(
      new Worker(queue.name, () => hold, { connection: redisOptions(), concurrency: 3 }),
    );
    await waitFor(async () => (await queue.getActiveCount()) === 3);
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed');
    expect(counts).toEqual({ waiting: 5, active: 3, delayed: 2 });
    const listed = await queue.getJobs(['waiting', 'active'], 0, -1, true);
    expect(new Set(listed.map((job) => job.id)).size).toBe(8);
    release();
    await waitFor(async () => (await queue.getCompletedCount()) === 8);
    expect(await queue.getJobCounts('waiting', 'active')).toEqual({ waiting: 0, active: 0 });
    await worker.close();
  });

  it('refuses a priority on a grouped job with what to use instead', async () => {
    const queue = newQueue('gvis-priority');
    const adding = queue.add('x', {}, { group: { id: 'tenant-a' }, priority: 3 });
    await expect(adding).rejects.toThrow(ValidationError);
    await expect(adding).rejects.toThrow(/lifo: true/);
    await expect(queue.add('x', {}, { groupKey: 'tenant-a', priority: 3 })).rejects.toThrow(
      /own group/,
    );
    expect(await queue.getJobCounts('waiting', 'prioritized')).toEqual({
      waiting: 0,
      prioritized: 0,
    });
  });
});

describe('grouped jobs in the console reads', () => {
  it('a queue of grouped jobs and no worker: counted, listed, a problem, in both Prometheus texts', async () => {
    const prefix = `gvis-${randomUUID().slice(0, 6)}`;
    const name = 'tenants';
    const queue = track(new Queue(name, { connection: redisOptions(), prefix }));
    await queue.addBulk(
      Array.from({ length: 38 }, (_, n) => ({
        name: 'sync',
        data: { n },
        opts: { group: { id: `tenant-${n % 4}` }, timestamp: Date.now() - 60 * 60_000 },
      })),
    );
    await queue.add('later', {}, { group: { id: 'tenant-0' }, delay: 60_000 });

    const overview = await getQueueOverview(client, prefix, name, { workers: [] });
    expect(overview.counts.waiting).toBe(38);
    expect(overview.counts.delayed).toBe(1);
    expect(overview.oldestWaitingAt).not.toBeNull();
    expect(overview.problems.map((problem) => problem.kind)).toEqual(
      expect.arrayContaining(['no-worker', 'old-backlog']),
    );

    const page = await listJobs(client, prefix, name, { state: 'waiting', page: 2, pageSize: 25 });
    expect(page.total).toBe(38);
    expect(page.jobs).toHaveLength(13);

    for (const order of ['newest', 'oldest'] as const) {
      const found = await searchJobs(client, prefix, name, {
        state: 'waiting',
        order,
        mode: 'text',
        query: '"n":37',
      });
      expect(found.total).toBe(38);
      expect(found.matches.map((row) => row.name)).toEqual(['sync']);
    }
    const later = await searchJobs(client, prefix, name, {
      state: 'delayed',
      mode: 'name',
      query: 'later',
    });
    expect(later.matches).toHaveLength(1);

    const own = await exportQueuePrometheusMetrics(client, prefix, name);
    expect(jobCount(own, name, 'waiting')).toBe(38);
    expect(jobCount(own, name, 'delayed')).toBe(1);
    const age = parsePrometheusText(own).samples.find(
      (s) => s.name === 'oxmq_queue_oldest_waiting_age_seconds',
    );
    expect(Number(age?.value)).toBeGreaterThan(59 * 60);
    const scrape = await collectConsoleMetrics(client, [prefix], { scan: { maxScan: 1e8 } });
    expect(jobCount(scrape.text, name, 'waiting')).toBe(38);
    expect(jobCount(scrape.text, name, 'delayed')).toBe(1);
  });

  it('the diagnosis says when every waiting job is in a group that cannot start one', async () => {
    const queue = newQueue('gvis-diagnose');
    await queue.pauseGroup('acme');
    await queue.setGroupConcurrency('globex', 1);
    await queue.addBulk([
      ...Array.from({ length: 3 }, () => ({
        name: 'a',
        data: {},
        opts: { group: { id: 'acme' } },
      })),
      ...Array.from({ length: 2 }, () => ({
        name: 'g',
        data: {},
        opts: { group: { id: 'globex' } },
      })),
    ]);
    let release: () => void = () => {};
    const hold = new Promise<void>((resolve) => (release = resolve));
    track({ close: async () => release() });
    track(new Worker(queue.name, () => hold, { connection: redisOptions(), concurrency: 5 }));
    await waitFor(async () => (await queue.getActiveCount()) === 1);
    const diagnosis = await diagnoseQueue(client, 'bull', queue.name);
    expect(diagnosis.healthy).toBe(false);
    expect(diagnosis.reasons).toEqual([
      {
        code: 'groups-held',
        message:
          'All 4 waiting jobs are in tenant groups that cannot start one now: acme is paused; globex runs 1 of 1 allowed.',
      },
    ]);
    // acme resumed starts all its jobs (it has no cap); globex's second job still waits.
    await queue.resumeGroup('acme');
    await waitFor(async () => (await queue.getActiveCount()) === 4);
    expect((await diagnoseQueue(client, 'bull', queue.name)).reasons).toEqual([
      {
        code: 'groups-held',
        message:
          'The one waiting job is in a tenant group that cannot start it now: globex runs 1 of 1 allowed.',
      },
    ]);
    // A plain job that can start: the groups no longer explain anything.
    await queue.pause();
    await queue.add('plain', {});
    const after = await diagnoseQueue(client, 'bull', queue.name);
    expect(after.reasons.map((reason) => reason.code)).toEqual(['paused']);
    release();
  });
});
