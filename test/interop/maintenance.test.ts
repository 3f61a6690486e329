/**
 * Interop, docs/redis-keys.md (event stream length) and 30 (obliterate/drain/clean leave no job
 * keys), between OxMQ (N) and bullmq 6.7.0 (B). The leak oracle is a SCAN of the queue's keys
 * and B's removeOrphanedJobs(), which must find nothing to remove.
 */
import { FlowProducer, Queue as BullQueue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import type { WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { gate, type Gate } from '../helpers/interop-core';
import { eventsNamed, jobIdsOf, jobKeys, queueKeys } from '../helpers/redis-state';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { startSideWorker, type SideWorker } from '../helpers/side-worker';

const track = useCleanup();
const label = (side: WorkerSide) => (side === 'oxmq' ? 'N' : 'B');
const other = (side: WorkerSide): WorkerSide => (side === 'oxmq' ? 'bullmq' : 'oxmq');

interface AddOpts {
  jobId?: string;
  priority?: number;
  delay?: number;
  attempts?: number;
}

type CleanType = 'completed' | 'failed' | 'wait' | 'delayed' | 'prioritized';

/** The operations these cases need, from either library's Queue. */
interface SideQueue {
  add(name: string, data: unknown, opts?: AddOpts): Promise<string>;
  addBulk(jobs: { name: string; data: unknown; opts?: AddOpts }[]): Promise<string[]>;
  clean(grace: number, limit: number, type: CleanType): Promise<string[]>;
  drain(delayed: boolean): Promise<void>;
  obliterate(opts?: { force?: boolean }): Promise<void>;
  getJobCounts(): Promise<Record<string, number>>;
}

async function openQueue(
  side: WorkerSide,
  name: string,
  maxLenEvents?: number,
): Promise<SideQueue> {
  const streams = maxLenEvents === undefined ? undefined : { events: { maxLen: maxLenEvents } };
  if (side === 'oxmq') {
    const queue = track(new Queue(name, { connection: redisOptions(), streams }));
    await queue.waitUntilReady();
    return {
      add: async (jobName, data, opts) => (await queue.add(jobName, data, opts)).id,
      addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id),
      clean: (grace, limit, type) => queue.clean(grace, limit, type),
      drain: (delayed) => queue.drain(delayed),
      obliterate: (opts) => queue.obliterate(opts),
      getJobCounts: () => queue.getJobCounts(),
    };
  }
  const queue = track(new BullQueue(name, { connection: redisOptions(), streams }));
  await queue.waitUntilReady();
  return {
    add: async (jobName, data, opts) => (await queue.add(jobName, data, opts)).id ?? '',
    addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id ?? ''),
    clean: (grace, limit, type) => queue.clean(grace, limit, type),
    drain: (delayed) => queue.drain(delayed),
    obliterate: (opts) => queue.obliterate(opts),
    getJobCounts: () => queue.getJobCounts(),
  };
}

describe('event stream length', () => {
  for (const setter of ['bullmq', 'oxmq'] as const) {
    const operator = other(setter);

    it(`${label(operator)} adds and completions keep XLEN near the maxLenEvents a ${label(setter)} Queue set`, async () => {
      const name = uniqueQueueName('xlen');
      const redis = track(rawClient());
      // Every Queue writes its maxLenEvents on start: the operator's first, the setter's last.
      const producer = await openQueue(operator, name);
      await openQueue(setter, name, 50);
      expect(await redis.hget(`bull:${name}:meta`, 'opts.maxLenEvents')).toBe('50');

      let longest = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          longest = Math.max(longest, await redis.xlen(`bull:${name}:events`));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const total = 1_000;
      for (let chunk = 0; chunk < total / 100; chunk++) {
        await producer.addBulk(
          Array.from({ length: 100 }, (_, i) => ({ name: 'e', data: { i: chunk * 100 + i } })),
        );
      }
      const afterAdds = await redis.xlen(`bull:${name}:events`);
      const worker = track(startSideWorker(operator, name, async () => 1, { concurrency: 10 }));
      await waitFor(() => worker.completed.length === total, 30_000);
      sampling = false;
      await sampler;
      const final = await redis.xlen(`bull:${name}:events`);

      // 3 000 events were written (added, waiting, active, completed per job, plus more).
      // Approximate trimming (MAXLEN ~) drops whole stream nodes, so the length hovers above 50.
      const bound = 50 + 200;
      for (const length of [afterAdds, final, longest]) {
        expect(length).toBeGreaterThan(0);
        expect(length).toBeLessThan(bound);
      }
      expect(worker.errors).toEqual([]);
      expect(await redis.zcard(`bull:${name}:completed`)).toBe(total);
    });
  }
});

interface Population {
  completed: string[];
  failed: string[];
  waiting: string[];
  prioritized: string[];
  delayed: string[];
  /** Set when the population includes a job held active by `holder` until `release` opens. */
  active?: { id: string; holder: SideWorker; release: Gate };
}

/**
 * With `side`'s producer and worker: 3 completed and 2 failed jobs (all with logs, the failures
 * with stacktraces), 3 waiting, 2 prioritized and 2 delayed; optionally one held active.
 */
async function populate(side: WorkerSide, name: string, withActive = false): Promise<Population> {
  const queue = await openQueue(side, name);
  const finished = await queue.addBulk([
    { name: 'ok', data: {} },
    { name: 'fail', data: {} },
    { name: 'ok', data: {} },
    { name: 'fail', data: {} },
    { name: 'ok', data: {} },
  ]);
  const release = gate();
  const processor = async (job: {
    name: string;
    id: string;
    log(line: string): Promise<unknown>;
  }) => {
    await job.log(`ran ${job.id}`);
    if (job.name === 'hold') await release.opened;
    if (job.name === 'fail') throw new Error('boom');
    return job.id;
  };
  const worker = startSideWorker(side, name, processor);
  await waitFor(() => worker.completed.length + worker.failed.length === finished.length, 10_000);
  await worker.close();

  let active: Population['active'];
  if (withActive) {
    const id = await queue.add('hold', {});
    const holder = track(startSideWorker(side, name, processor));
    await waitFor(() => holder.started.includes(id), 10_000);
    active = { id, holder, release };
  }
  const waiting = await queue.addBulk([1, 2, 3].map((i) => ({ name: 'w', data: { i } })));
  const prioritized = [
    await queue.add('p', {}, { priority: 2 }),
    await queue.add('p', {}, { priority: 1 }),
  ];
  const delayed = [
    await queue.add('d', {}, { delay: 60_000 }),
    await queue.add('d', {}, { delay: 30_000 }),
  ];
  return {
    completed: [finished[0]!, finished[2]!, finished[4]!],
    failed: [finished[1]!, finished[3]!],
    waiting,
    prioritized,
    delayed,
    active,
  };
}

/** The ids that still own keys in the queue; and B's orphan sweep must find none. */
async function expectJobsLeft(
  redis: Redis,
  oracle: BullQueue,
  name: string,
  ids: string[],
): Promise<void> {
  expect(jobIdsOf(await jobKeys(redis, name), name)).toEqual([...ids].sort());
  expect(await oracle.removeOrphanedJobs()).toBe(0);
}

describe('obliterate/drain/clean leave no job keys', () => {
  for (const writer of ['oxmq', 'bullmq'] as const) {
    const actor = other(writer);

    it(`${label(actor)} clean and drain on ${label(writer)} data remove jobs with all their keys`, async () => {
      const name = uniqueQueueName('clean');
      const redis = track(rawClient());
      const data = await populate(writer, name);
      const queue = await openQueue(actor, name);
      const oracle = track(new BullQueue(name, { connection: redisOptions() }));
      const all = [
        ...data.completed,
        ...data.failed,
        ...data.waiting,
        ...data.prioritized,
        ...data.delayed,
      ];
      // Logs exist for every finished job before cleaning.
      for (const id of [...data.completed, ...data.failed]) {
        expect(await redis.exists(`bull:${name}:${id}:logs`), id).toBe(1);
      }
      await expectJobsLeft(redis, oracle, name, all);

      expect((await queue.clean(0, 0, 'completed')).sort()).toEqual([...data.completed].sort());
      const afterCompleted = all.filter((id) => !data.completed.includes(id));
      await expectJobsLeft(redis, oracle, name, afterCompleted);
      expect(await eventsNamed(redis, name, 'cleaned')).toEqual([{ event: 'cleaned', count: '3' }]);

      expect((await queue.clean(0, 0, 'failed')).sort()).toEqual([...data.failed].sort());
      const afterFailed = afterCompleted.filter((id) => !data.failed.includes(id));
      await expectJobsLeft(redis, oracle, name, afterFailed);

      expect((await queue.clean(0, 0, 'prioritized')).sort()).toEqual([...data.prioritized].sort());
      const afterPrioritized = afterFailed.filter((id) => !data.prioritized.includes(id));
      await expectJobsLeft(redis, oracle, name, afterPrioritized);

      // The oldest waiting job by clean, then the rest by drain (delayed jobs stay), then delayed.
      const [oldestWaiting] = await queue.clean(0, 1, 'wait');
      expect(oldestWaiting).toBe(data.waiting[0]);
      await expectJobsLeft(
        redis,
        oracle,
        name,
        afterPrioritized.filter((id) => id !== oldestWaiting),
      );

      await queue.drain(false);
      await expectJobsLeft(redis, oracle, name, data.delayed);
      expect(await queue.getJobCounts()).toEqual({
        active: 0,
        completed: 0,
        delayed: 2,
        failed: 0,
        prioritized: 0,
        waiting: 0,
        'waiting-children': 0,
      });

      await queue.drain(true);
      await expectJobsLeft(redis, oracle, name, []);
      for (const key of [
        'wait',
        'prioritized',
        'delayed',
        'completed',
        'failed',
        'waiting-children',
      ]) {
        expect(await redis.exists(`bull:${name}:${key}`), key).toBe(0);
      }
    });

    it(`${label(actor)} clean and drain of flow children (B FlowProducer data) remove or release their parents`, async () => {
      const name = uniqueQueueName('flowclean');
      const parents = `${name}-parents`;
      const redis = track(rawClient());
      const flows = track(new FlowProducer({ connection: redisOptions() }));
      const child = (jobId: string, delay?: number) => ({
        name: 'child',
        queueName: name,
        data: {},
        opts: { jobId, delay },
      });
      // ps waits for cs in the same queue; px and pd wait, in another queue, for cx and cd.
      await flows.add({
        name: 'parent',
        queueName: name,
        data: {},
        opts: { jobId: 'ps' },
        children: [child('cs')],
      });
      await flows.add({
        name: 'parent',
        queueName: parents,
        data: {},
        opts: { jobId: 'px' },
        children: [child('cx')],
      });
      await flows.add({
        name: 'parent',
        queueName: parents,
        data: {},
        opts: { jobId: 'pd' },
        children: [child('cd', 60_000)],
      });
      const queue = await openQueue(actor, name);
      const oracle = track(new BullQueue(name, { connection: redisOptions() }));
      const parentsOracle = track(new BullQueue(parents, { connection: redisOptions() }));
      await expectJobsLeft(redis, oracle, name, ['cd', 'cs', 'cx', 'ps']);

      // A cleaned child that was its parent's last dependency releases that parent.
      expect(await queue.clean(0, 0, 'delayed')).toEqual(['cd']);
      await expectJobsLeft(redis, oracle, name, ['cs', 'cx', 'ps']);
      expect(await redis.exists(`bull:${parents}:pd:dependencies`)).toBe(0);
      expect(await parentsOracle.getJobState('pd')).toBe('waiting');

      // Draining hard-removes a same-queue parent with its last child and releases the other.
      await queue.drain(false);
      await expectJobsLeft(redis, oracle, name, []);
      expect(await redis.exists(`bull:${name}:waiting-children`)).toBe(0);
      expect(await redis.exists(`bull:${parents}:px:dependencies`)).toBe(0);
      expect(await parentsOracle.getJobState('px')).toBe('waiting');
      expect((await redis.lrange(`bull:${parents}:wait`, 0, -1)).sort()).toEqual(['pd', 'px']);
      expect(await parentsOracle.removeOrphanedJobs()).toBe(0);
    });

    it(`${label(actor)} obliterate on ${label(writer)} data deletes the whole queue`, async () => {
      const name = uniqueQueueName('oblit');
      const redis = track(rawClient());
      const data = await populate(writer, name, true);
      const active = data.active!;
      try {
        const queue = await openQueue(actor, name);
        const oracle = track(new BullQueue(name, { connection: redisOptions() }));
        const before = await jobKeys(redis, name);
        expect(before).toContain(`bull:${name}:${active.id}:lock`);

        // An active job blocks obliterate unless forced, and nothing is removed then.
        await expect(queue.obliterate()).rejects.toThrow();
        expect(await jobKeys(redis, name)).toEqual(before);

        await queue.obliterate({ force: true });
        const left = await queueKeys(redis, name);
        if (actor === 'bullmq') {
          // bullmq does not know OxMQ's history hashes: they stay until they expire.
          expect(left.filter((key) => !key.startsWith(`bull:${name}:oxmq:history`))).toEqual([]);
        } else {
          expect(left).toEqual([]);
        }
        expect(await oracle.removeOrphanedJobs()).toBe(0);
      } finally {
        active.release.open();
      }
      // The holder finds its job gone when it finishes; it must not bring it back.
      await waitFor(
        () => active.holder.errors.length > 0 || active.holder.completed.length > 0,
        10_000,
      );
      expect(active.holder.completed).toEqual([]);
      expect(jobIdsOf(await jobKeys(redis, name), name)).toEqual([]);
    });
  }
});
