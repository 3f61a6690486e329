/**
 * Interop, docs/redis-keys.md (Bull-Board parity) and 27 (workers listing). OxMQ (N) writes a
 * queue with jobs in every state; bullmq 6.7.0 (B) and Bull-Board (@bull-board/api's
 * BullMQAdapter and its API routes) must read it exactly as they read the same data produced
 * by B, and Bull-Board's actions must work on it.
 */
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import {
  FlowProducer,
  Queue as BullQueue,
  Worker as BullWorker,
  type Job as BullJob,
} from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker } from 'oxmq';
import { bullBoard } from '../helpers/bull-board-harness';
import type { WorkerSide } from '../helpers/child-worker';
import { useCleanup } from '../helpers/cleanup';
import { gate, type Gate } from '../helpers/interop-core';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { eventsNamed, jobIdsOf, jobKeys, workerNameBase } from '../helpers/redis-state';
import {
  sideProducer,
  startSideWorker,
  type SideJob,
  type SideWorker,
} from '../helpers/side-worker';

const track = useCleanup();

/** A job of each state comes from the same processor on both sides. */
function processor(release: Gate) {
  return async (job: SideJob) => {
    if (job.name === 'hold') await release.opened;
    if (job.name === 'fail' && job.attemptsMade === 0) throw new Error('boom');
    await job.log(`log ${job.id}`);
    return { id: job.id };
  };
}

const STATES: Record<string, string[]> = {
  completed: ['c-1', 'c-2'],
  failed: ['f-1'],
  active: ['a-1'],
  waiting: ['w-1', 'w-2', 'w-3'],
  prioritized: ['p-1', 'p-2', 'p-3'],
  delayed: ['d-1', 'd-2'],
  'waiting-children': ['wc-1'],
};

const EXPECTED_COUNTS = {
  active: 1,
  completed: 2,
  delayed: 2,
  failed: 1,
  prioritized: 3,
  waiting: 3,
  'waiting-children': 1,
};

interface Populated {
  name: string;
  holder: SideWorker;
  release: Gate;
}

/**
 * Writes, with `side`'s producer and workers, jobs in every state: 2 completed, 1 failed, 1 active
 * (held by a worker until `release` opens), 3 waiting (one LIFO), 3 prioritized, 2 delayed, and a
 * parent waiting for a child in another queue (written by B's FlowProducer, OxMQ having none).
 */
async function populate(side: WorkerSide): Promise<Populated> {
  const name = uniqueQueueName(`board-${side}`);
  const release = gate();
  const { add } = sideProducer(track, side, name);

  await add('ok', { n: 1 }, { jobId: 'c-1' });
  await add('ok', { n: 2 }, { jobId: 'c-2' });
  await add('fail', { n: 3 }, { jobId: 'f-1' });
  const first = startSideWorker(side, name, processor(release), { concurrency: 1 });
  await waitFor(() => first.completed.length + first.failed.length === 3, 10_000);
  await first.close();

  await add('hold', {}, { jobId: 'a-1' });
  const holder = track(startSideWorker(side, name, processor(release), { concurrency: 1 }));
  await waitFor(() => holder.started.includes('a-1'), 10_000);

  await add('w', { i: 1 }, { jobId: 'w-1' });
  await add('w', { i: 2 }, { jobId: 'w-2' });
  await add('w', { i: 3 }, { jobId: 'w-3', lifo: true });
  await add('p', { i: 1 }, { jobId: 'p-1', priority: 3 });
  await add('p', { i: 2 }, { jobId: 'p-2', priority: 1 });
  await add('p', { i: 3 }, { jobId: 'p-3', priority: 2 });
  await add('d', { i: 1 }, { jobId: 'd-1', delay: 60_000 });
  await add('d', { i: 2 }, { jobId: 'd-2', delay: 30_000 });
  const flows = track(new FlowProducer({ connection: redisOptions() }));
  await flows.add({
    name: 'parent',
    queueName: name,
    data: {},
    opts: { jobId: 'wc-1' },
    children: [
      { name: 'child', queueName: `${name}-children`, data: {}, opts: { jobId: 'wc-1-child' } },
    ],
  });
  return { name, holder, release };
}

/** What a reader sees of a job, without what legitimately differs between two runs. */
function comparable(job: BullJob) {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    progress: job.progress,
    delay: job.delay,
    priority: job.priority,
    attemptsMade: job.attemptsMade,
    attemptsStarted: job.attemptsStarted,
    stalledCounter: job.stalledCounter,
    failedReason: job.failedReason,
    stacktraceLength: (job.stacktrace ?? []).length,
    returnvalue: job.returnvalue,
    finished: job.finishedOn !== undefined,
    processed: job.processedOn !== undefined,
    hasParent: job.parentKey !== undefined,
  };
}

describe('Bull-Board parity', () => {
  it('B Queue and Bull-Board read N data exactly as the same data written by B, and its actions work on it', async () => {
    const n = await populate('oxmq');
    const b = await populate('bullmq');
    try {
      await checkParityAndActions(n, b);
    } finally {
      // A held job would keep its worker's close() waiting.
      n.release.open();
      b.release.open();
    }
  });
});

async function checkParityAndActions(n: Populated, b: Populated): Promise<void> {
  const redis = track(rawClient());
  const readerN = track(new BullQueue(n.name, { connection: redisOptions() }));
  const readerB = track(new BullQueue(b.name, { connection: redisOptions() }));

  // Counts, listings (both orders) and states, through B's Queue.
  expect(await readerN.getJobCounts()).toEqual(EXPECTED_COUNTS);
  expect(await readerB.getJobCounts()).toEqual(EXPECTED_COUNTS);
  const expectedOrder: Record<string, string[]> = {
    completed: ['c-1', 'c-2'],
    failed: ['f-1'],
    active: ['a-1'],
    // w-3 is LIFO: it runs first, so it is the "oldest" end of the list.
    waiting: ['w-3', 'w-1', 'w-2'],
    prioritized: ['p-2', 'p-3', 'p-1'],
    delayed: ['d-2', 'd-1'],
    'waiting-children': ['wc-1'],
  };
  for (const [state, ascending] of Object.entries(expectedOrder)) {
    for (const asc of [true, false]) {
      const type = state as keyof typeof EXPECTED_COUNTS;
      const fromN = await readerN.getJobs([type], 0, 9, asc);
      const fromB = await readerB.getJobs([type], 0, 9, asc);
      expect(
        fromN.map((job) => job.id),
        `${state} asc=${asc}`,
      ).toEqual(asc ? ascending : [...ascending].reverse());
      expect(fromN.map(comparable), `${state} asc=${asc}`).toEqual(fromB.map(comparable));
    }
  }
  const ourQueue = track(new Queue(n.name, { connection: redisOptions() }));
  for (const [state, ids] of Object.entries(STATES)) {
    for (const id of ids) {
      expect(await readerN.getJobState(id), id).toBe(state);
      expect(await ourQueue.getJobState(id), id).toBe(state);
    }
  }
  // The waiting-children parent was written by B's FlowProducer; our Queue reads it too.
  const parent = await ourQueue.getJob('wc-1');
  expect(parent?.name).toBe('parent');
  expect(await redis.smembers(`bull:${n.name}:wc-1:dependencies`)).toEqual([
    `bull:${n.name}-children:wc-1-child`,
  ]);

  // Bull-Board's adapter over both queues.
  const adapterN = new BullMQAdapter(readerN);
  const adapterB = new BullMQAdapter(readerB);
  expect(await adapterN.getJobCounts()).toEqual(EXPECTED_COUNTS);
  for (const status of adapterN.getJobStatuses()) {
    const fromN = await adapterN.getJobs([status], 0, 9);
    const fromB = await adapterB.getJobs([status], 0, 9);
    expect(fromN.map(comparable), status).toEqual(fromB.map(comparable));
    expect(fromN.map((job) => job.id).sort(), status).toEqual([...(STATES[status] ?? [])].sort());
  }
  expect((await adapterN.getJob('c-1'))?.returnvalue).toEqual({ id: 'c-1' });
  expect(await adapterN.getJobLogs('c-2')).toEqual(['log c-2']);
  expect(await adapterN.isPaused()).toBe(false);
  const adapterWorkers = await adapterN.getWorkers();
  expect(adapterWorkers).toHaveLength(1);

  // Bull-Board's API routes: the queue listing.
  const board = bullBoard([adapterN, adapterB]);
  const listing = async (queueName: string, status: string) => {
    const response = await board.call('get', '/api/queues', {
      query: { activeQueue: queueName, status, page: '1', jobsPerPage: '10' },
    });
    expect(response.status).toBe(200);
    const body = response.body as {
      queues: { name: string; counts: unknown; jobs: { id: string }[]; hasWorkers: boolean }[];
    };
    const entry = body.queues.find((q) => q.name === queueName);
    if (!entry) throw new Error(`queue ${queueName} not listed`);
    return entry;
  };
  for (const status of ['latest', ...Object.keys(STATES)]) {
    const fromN = await listing(n.name, status);
    const fromB = await listing(b.name, status);
    expect(fromN.counts).toEqual(EXPECTED_COUNTS);
    expect(fromN.hasWorkers).toBe(true);
    expect(
      fromN.jobs.map((job) => job.id),
      status,
    ).toEqual(fromB.jobs.map((job) => job.id));
  }
  expect((await listing(n.name, 'failed')).jobs.map((job) => job.id)).toEqual(['f-1']);

  // Bull-Board's actions on N data: retry the failed job, promote a delayed one, remove a
  // waiting one (its "clean job" button), clean completed jobs.
  const params = (jobId: string) => ({ params: { queueName: n.name, jobId } });
  expect(
    (await board.call('put', '/api/queues/:queueName/:jobId/retry', params('f-1'))).status,
  ).toBe(204);
  expect(
    (await board.call('put', '/api/queues/:queueName/:jobId/promote', params('d-1'))).status,
  ).toBe(204);
  expect(
    (await board.call('put', '/api/queues/:queueName/:jobId/clean', params('w-1'))).status,
  ).toBe(204);
  await adapterN.clean('completed', 0);
  // The job our worker holds is protected by its lock: Bull-Board reports it as active (409).
  expect(
    (await board.call('put', '/api/queues/:queueName/:jobId/clean', params('a-1'))).status,
  ).toBe(409);
  expect(await readerN.getJobState('a-1')).toBe('active');
  expect(await redis.exists(`bull:${n.name}:a-1:lock`)).toBe(1);
  expect(await readerN.getJobState('f-1')).toBe('waiting');
  expect(await readerN.getJobState('d-1')).toBe('waiting');
  expect(await readerN.getJobState('w-1')).toBe('unknown');
  expect(await eventsNamed(redis, n.name, 'removed')).toEqual([
    { event: 'removed', jobId: 'w-1', prev: 'wait' },
  ]);
  const leftKeys = jobIdsOf(await jobKeys(redis, n.name), n.name);
  for (const gone of ['w-1', 'c-1', 'c-2']) expect(leftKeys).not.toContain(gone);
  expect(await adapterN.getJobCounts()).toEqual({
    ...EXPECTED_COUNTS,
    completed: 0,
    failed: 0,
    delayed: 1,
    waiting: 4,
  });

  // N's worker picks up everything that is now runnable, the retried job included.
  n.release.open();
  const runnable = ['a-1', 'w-2', 'w-3', 'f-1', 'd-1', 'p-1', 'p-2', 'p-3'];
  await waitFor(() => runnable.every((id) => n.holder.completed.includes(id)), 15_000);
  expect(n.holder.errors).toEqual([]);
  const retried = await readerN.getJob('f-1');
  expect(retried?.returnvalue).toEqual({ id: 'f-1' });
  expect(retried?.attemptsMade).toBe(2);
  expect(await readerN.getJobState('f-1')).toBe('completed');
  expect(await adapterN.getJobCounts()).toEqual({
    active: 0,
    completed: runnable.length,
    delayed: 1,
    failed: 0,
    prioritized: 0,
    waiting: 0,
    'waiting-children': 1,
  });
}

describe('workers listing', () => {
  it('an N worker named w1 is listed by B getWorkers and Bull-Board; N getWorkers lists B workers too', async () => {
    const name = uniqueQueueName('workers');
    const base = workerNameBase(name);
    const bQueue = track(new BullQueue(name, { connection: redisOptions() }));
    const nQueue = track(new Queue(name, { connection: redisOptions() }));
    const w1 = new Worker(name, async () => null, { connection: redisOptions(), name: 'w1' });
    await w1.waitUntilReady();

    const listed = await bQueue.getWorkers();
    expect(listed).toHaveLength(1);
    expect(listed[0]?.rawname).toBe(`${base}:w:w1`);
    expect(listed[0]?.name).toBe(name);
    expect(listed[0]?.addr).toMatch(/:\d+$/);
    expect(await bQueue.getWorkersCount()).toBe(1);

    const adapter = new BullMQAdapter(bQueue);
    const expectedBoardEntry = [
      { id: listed[0]?.id, name: 'w1', addr: listed[0]?.addr, age: expect.any(Number) },
    ];
    expect(await adapter.getWorkers()).toEqual(expectedBoardEntry);
    const board = bullBoard([adapter]);
    const response = await board.call('get', '/api/queues/:queueName/workers', {
      params: { queueName: name },
    });
    expect(response).toEqual({ status: 200, body: { workers: expectedBoardEntry } });

    // A QueueEvents is not a worker, but B finds it under its own name.
    const events = track(new QueueEvents(name, { connection: redisOptions() }));
    await events.waitUntilReady();
    expect(await bQueue.getWorkersCount()).toBe(1);
    expect((await bQueue.getQueueEvents()).map((c) => c.rawname)).toEqual([`${base}:qe`]);

    // B workers (named and unnamed) and an unnamed N worker, seen from both sides.
    const others = [
      new BullWorker(name, async () => null, { connection: redisOptions(), name: 'bw' }),
      new BullWorker(name, async () => null, { connection: redisOptions() }),
    ];
    const unnamedN = new Worker(name, async () => null, { connection: redisOptions() });
    await Promise.all([...others.map((w) => w.waitUntilReady()), unnamedN.waitUntilReady()]);
    try {
      const fromB = await bQueue.getWorkers();
      const fromN = await nQueue.getWorkers();
      const summary = (clients: { rawname?: string; id?: string; addr?: string }[]) =>
        clients
          .map((c) => ({ rawname: c.rawname, id: c.id, addr: c.addr }))
          .sort((x, y) => String(x.id).localeCompare(String(y.id)));
      expect(fromB.map((c) => c.rawname).sort()).toEqual(
        [base, base, `${base}:w:bw`, `${base}:w:w1`].sort(),
      );
      expect(summary(fromN)).toEqual(summary(fromB));
      expect(await nQueue.getWorkersCount()).toBe(4);
      expect((await adapter.getWorkers())?.map((w) => w.name).sort()).toEqual(
        ['bw', 'w1', null, null].sort(),
      );
    } finally {
      await Promise.all([...others.map((w) => w.close()), unnamedN.close()]);
    }

    await w1.close();
    await waitFor(async () => (await bQueue.getWorkersCount()) === 0, 5_000);
    expect(await nQueue.getWorkers()).toEqual([]);
  });
});
