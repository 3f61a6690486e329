/**
 * The Job's children API against bullmq 6.7.0 (docs/redis-keys.md):
 * - reads (getChildrenValues, getIgnoredChildrenFailures, getFailedChildrenValues,
 *   getDependencies whole and paged, getDependenciesCount) equal bullmq's own Job methods on the
 *   same data, for flows written and worked by either library;
 * - moveToWaitingChildren with dynamic children, in both directions;
 * - removeChildDependency and retried children leave the Redis state bullmq's do, on twin
 *   flows (same tree under two prefixes: one operated by bullmq, one by OxMQ).
 */
import {
  FlowProducer as BullFlowProducer,
  Queue as BullQueue,
  WaitingChildrenError as BullWaitingChildrenError,
  Worker as BullWorker,
  type FlowJob as BullFlowJob,
  type Job as BullJob,
} from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  FlowProducer,
  Job,
  ParentJobNotFoundError,
  Queue,
  WaitingChildrenError,
  Worker,
  type FlowJob,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
type Side = 'oxmq' | 'bullmq';
const SIDES: readonly Side[] = ['bullmq', 'oxmq'];
const TS = 1_700_000_000_000;

/** Child processor of either library: `ok*` return data.value, `fail*` throw `<name> boom`. */
async function childResult(job: { name: string; data: { value?: unknown } }): Promise<unknown> {
  if (job.name.startsWith('fail')) throw new Error(`${job.name} boom`);
  return job.data.value ?? null;
}

function startChildWorker(side: Side, queueName: string, prefix = 'bull', concurrency = 1) {
  const opts = { connection: redisOptions(), prefix, concurrency };
  return side === 'oxmq'
    ? track(new Worker(queueName, (job: Job) => childResult(job), opts))
    : track(new BullWorker(queueName, (job: BullJob) => childResult(job), opts));
}

async function addFlow(side: Side, tree: FlowJob, prefix = 'bull'): Promise<void> {
  if (side === 'oxmq') {
    await track(new FlowProducer({ connection: redisOptions(), prefix })).add(tree);
  } else {
    await track(new BullFlowProducer({ connection: redisOptions(), prefix })).add(
      tree as BullFlowJob,
    );
  }
}

/** One job as both libraries read it. */
async function bothJobs(queueName: string, jobId: string, prefix = 'bull') {
  const ours = track(new Queue(queueName, { connection: redisOptions(), prefix }));
  const theirs = track(new BullQueue(queueName, { connection: redisOptions(), prefix }));
  return { ours: (await ours.getJob(jobId))!, theirs: (await theirs.getJob(jobId))! };
}

async function finishedCount(redis: Redis, base: string): Promise<number> {
  return (await redis.zcard(`${base}:completed`)) + (await redis.zcard(`${base}:failed`));
}

const key = (queue: string, id: string, prefix = 'bull') => `${prefix}:${queue}:${id}`;

function mixedTree(pq: string, cq: string, cq2: string): FlowJob {
  return {
    name: 'parent',
    queueName: pq,
    data: {},
    opts: { jobId: 'parent', timestamp: TS },
    children: [
      { name: 'ok1', queueName: cq, data: { value: { n: 1 } }, opts: { jobId: 'ok1' } },
      { name: 'ok2', queueName: cq, data: { value: 'two' }, opts: { jobId: 'ok2' } },
      { name: 'fail-i', queueName: cq, opts: { jobId: 'ign', ignoreDependencyOnFailure: true } },
      { name: 'fail-c', queueName: cq, opts: { jobId: 'cont', continueParentOnFailure: true } },
      { name: 'fail-fp', queueName: cq, opts: { jobId: 'fp', failParentOnFailure: true } },
      { name: 'pend1', queueName: cq2, opts: { jobId: 'pend1' } },
      { name: 'pend2', queueName: cq2, opts: { jobId: 'pend2' } },
    ],
  };
}

describe.each(SIDES)(
  'reads equal bullmq’s own Job methods (flow written and worked by %s)',
  (side) => {
    it('on a parent with every kind of child record, and on a leaf', async () => {
      const redis = track(rawClient());
      const [pq, cq, cq2] = [
        uniqueQueueName('idp'),
        uniqueQueueName('idc'),
        uniqueQueueName('idd'),
      ];
      await addFlow(side, mixedTree(pq, cq, cq2));
      startChildWorker(side, cq);
      await waitFor(async () => (await finishedCount(redis, `bull:${cq}`)) === 5, 15_000);

      const { ours, theirs } = await bothJobs(pq, 'parent');
      const values = await ours.getChildrenValues();
      expect(values).toEqual({ [key(cq, 'ok1')]: { n: 1 }, [key(cq, 'ok2')]: 'two' });
      expect(values).toEqual(await theirs.getChildrenValues());
      const ignored = await ours.getIgnoredChildrenFailures();
      expect(Object.keys(ignored).sort()).toEqual([key(cq, 'cont'), key(cq, 'ign')]);
      expect(ignored).toEqual(await theirs.getIgnoredChildrenFailures());
      expect(await ours.getFailedChildrenValues()).toEqual(await theirs.getFailedChildrenValues());

      const all = await ours.getDependencies();
      expect(all.failed).toEqual([key(cq, 'fp')]);
      expect([...all.unprocessed!].sort()).toEqual([key(cq2, 'pend1'), key(cq2, 'pend2')]);
      expect(all).toEqual(await theirs.getDependencies());

      for (const opts of [
        {},
        { processed: true, failed: true },
        { unprocessed: true },
        { ignored: true, unprocessed: false },
      ]) {
        expect(await ours.getDependenciesCount(opts)).toEqual(
          await theirs.getDependenciesCount(opts),
        );
      }
      for (const opts of [
        { processed: {}, unprocessed: {}, ignored: {} },
        { processed: { count: 1 } },
        { unprocessed: { cursor: 0, count: 1 }, ignored: { count: 5 } },
      ]) {
        expect(await ours.getDependencies(opts)).toEqual(await theirs.getDependencies(opts));
      }
      // failed pages hold the same keys; bullmq's nextFailedCursor is cursor + count even at the
      // end, ours is 0 there (like the SCAN cursors of the other kinds).
      const oursFailed = await ours.getDependencies({ failed: {} });
      const theirsFailed = await theirs.getDependencies({ failed: {} });
      expect(oursFailed).toEqual({ failed: [key(cq, 'fp')], nextFailedCursor: 0 });
      expect(theirsFailed.failed).toEqual(oursFailed.failed);

      const leaf = await bothJobs(cq, 'ok1');
      expect(await leaf.ours.getChildrenValues()).toEqual(await leaf.theirs.getChildrenValues());
      expect(await leaf.ours.getDependencies()).toEqual(await leaf.theirs.getDependencies());
      expect(await leaf.ours.getDependenciesCount()).toEqual(
        await leaf.theirs.getDependenciesCount(),
      );
      expect(await leaf.ours.getDependencies({ unprocessed: {}, processed: {} })).toEqual(
        await leaf.theirs.getDependencies({ unprocessed: {}, processed: {} }),
      );
    });
  },
);

describe('paging 1,000 children in step with bullmq', () => {
  it('gives the same pages and cursors as bullmq, each child exactly once', async () => {
    const redis = track(rawClient());
    const [pq, cq] = [uniqueQueueName('ipp'), uniqueQueueName('ipc')];
    const children = Array.from({ length: 1000 }, (_, i) => ({
      name: i % 5 === 4 ? 'fail-i' : 'ok',
      queueName: cq,
      data: { value: `v${i}` },
      opts: { jobId: `c${i}`, ...(i % 5 === 4 ? { ignoreDependencyOnFailure: true } : {}) },
    }));
    await addFlow('bullmq', { name: 'parent', queueName: pq, opts: { jobId: 'p' }, children });
    const { ours, theirs } = await bothJobs(pq, 'p');
    const everyChild = children.map((child) => key(cq, child.opts.jobId)).sort();

    /** Walks one kind with both libraries from the same cursors; returns the keys seen. */
    const walk = async (kind: 'processed' | 'unprocessed') => {
      const cursorField = kind === 'processed' ? 'nextProcessedCursor' : 'nextUnprocessedCursor';
      const seen: string[] = [];
      let cursor = 0;
      let pages = 0;
      do {
        const opts = { [kind]: { cursor, count: 100 } };
        const page = await ours.getDependencies(opts);
        expect(page).toEqual(await theirs.getDependencies(opts));
        const entries = page[kind]!;
        seen.push(...(Array.isArray(entries) ? entries : Object.keys(entries)));
        cursor = page[cursorField]!;
        pages += 1;
      } while (cursor !== 0);
      expect(pages).toBeGreaterThanOrEqual(5);
      expect(new Set(seen).size).toBe(seen.length);
      return seen.sort();
    };

    expect(await walk('unprocessed')).toEqual(everyChild);
    startChildWorker('oxmq', cq, 'bull', 50);
    await waitFor(async () => (await finishedCount(redis, `bull:${cq}`)) === 1000, 60_000);
    const completed = children.filter((_, i) => i % 5 !== 4).map((c) => key(cq, c.opts.jobId));
    expect(await walk('processed')).toEqual(completed.sort());
    expect(await ours.getDependenciesCount()).toEqual(await theirs.getDependenciesCount());
    expect(await ours.getDependenciesCount()).toEqual({
      processed: 800,
      unprocessed: 0,
      ignored: 200,
      failed: 0,
    });
  });
});

describe('moveToWaitingChildren with dynamic children, both ways', () => {
  it('an OxMQ parent parks, bullmq finishes its children, the OxMQ parent resumes', async () => {
    const redis = track(rawClient());
    const [pq, cq] = [uniqueQueueName('imp'), uniqueQueueName('imc')];
    const childQueue = track(new Queue(cq, { connection: redisOptions() }));
    const runs: boolean[] = [];
    const outcomes: string[] = [];
    const parentWorker = track(
      new Worker(
        pq,
        async (job: Job<{ step?: string }>, token?: string) => {
          if (!job.data.step) {
            const parent = { id: job.id, queue: job.queueQualifiedName };
            await childQueue.add('ok', { value: 1 }, { jobId: 'k1', parent });
            await childQueue.add('ok', { value: [2] }, { jobId: 'k2', parent });
            await job.updateData({ step: 'parked' });
            const moved = await job.moveToWaitingChildren(token!);
            runs.push(moved);
            if (moved) throw new WaitingChildrenError();
          }
          runs.push(await job.moveToWaitingChildren(token!));
          return job.getChildrenValues();
        },
        { connection: redisOptions() },
      ),
    );
    parentWorker.on('completed', () => outcomes.push('completed'));
    parentWorker.on('failed', (_job: Job, error: Error) => outcomes.push(error.message));
    await track(new Queue(pq, { connection: redisOptions() })).add('parent', {}, { jobId: 'p' });
    await waitFor(async () => (await redis.zscore(`bull:${pq}:waiting-children`, 'p')) !== null);

    // bullmq sees the parked parent as waiting for its two children.
    const bullParent = (await track(new BullQueue(pq, { connection: redisOptions() })).getJob(
      'p',
    ))!;
    expect(await bullParent.getState()).toBe('waiting-children');
    expect((await bullParent.getDependencies()).unprocessed!.sort()).toEqual([
      key(cq, 'k1'),
      key(cq, 'k2'),
    ]);

    startChildWorker('bullmq', cq);
    await waitFor(() => outcomes.length > 0, 15_000);
    expect(outcomes).toEqual(['completed']);
    expect(runs).toEqual([true, false]);
    const done = (await bothJobs(pq, 'p')).theirs;
    expect(done.returnvalue).toEqual({ [key(cq, 'k1')]: 1, [key(cq, 'k2')]: [2] });
    expect(await done.getChildrenValues()).toEqual(done.returnvalue);
  });

  it('a bullmq parent parks, OxMQ finishes its children, the bullmq parent resumes', async () => {
    const redis = track(rawClient());
    const [pq, cq] = [uniqueQueueName('inp'), uniqueQueueName('inc')];
    const childQueue = track(new BullQueue(cq, { connection: redisOptions() }));
    const runs: boolean[] = [];
    const outcomes: string[] = [];
    const parentWorker = track(
      new BullWorker(
        pq,
        async (job: BullJob<{ step?: string }>, token?: string) => {
          if (!job.data.step) {
            const parent = { id: job.id!, queue: job.queueQualifiedName };
            await childQueue.add('ok', { value: 'a' }, { jobId: 'k1', parent });
            await childQueue.add('ok', { value: 'b' }, { jobId: 'k2', parent });
            await job.updateData({ step: 'parked' });
            const moved = await job.moveToWaitingChildren(token!);
            runs.push(moved);
            if (moved) throw new BullWaitingChildrenError();
          }
          runs.push(await job.moveToWaitingChildren(token!));
          return job.getChildrenValues();
        },
        { connection: redisOptions() },
      ),
    );
    parentWorker.on('completed', () => outcomes.push('completed'));
    parentWorker.on('failed', (_job, error) => outcomes.push(error.message));
    await track(new BullQueue(pq, { connection: redisOptions() })).add(
      'parent',
      {},
      { jobId: 'p' },
    );
    await waitFor(async () => (await redis.zscore(`bull:${pq}:waiting-children`, 'p')) !== null);

    const oursParent = (await bothJobs(pq, 'p')).ours;
    expect(await oursParent.getDependenciesCount()).toEqual({
      processed: 0,
      unprocessed: 2,
      ignored: 0,
      failed: 0,
    });

    startChildWorker('oxmq', cq);
    await waitFor(() => outcomes.length > 0, 15_000);
    expect(outcomes).toEqual(['completed']);
    expect(runs).toEqual([true, false]);
    const done = (await bothJobs(pq, 'p')).ours;
    expect(done.returnvalue).toEqual({ [key(cq, 'k1')]: 'a', [key(cq, 'k2')]: 'b' });
    expect(await done.getChildrenValues()).toEqual(done.returnvalue);
  });

  it('parks with the same Redis writes as bullmq', async () => {
    const redis = track(rawClient());
    const parked: Record<Side, unknown> = { oxmq: undefined, bullmq: undefined };
    for (const side of SIDES) {
      const prefix = `twp-${side}-${uniqueQueueName()}`;
      const [pq, cq] = ['pq', 'cq'];
      const children = track(new Queue(cq, { connection: redisOptions(), prefix }));
      const processor = async (job: Job | BullJob, token?: string) => {
        await children.add(
          'c',
          {},
          { jobId: 'c', parent: { id: job.id!, queue: `${prefix}:${pq}` } },
        );
        if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
        return 'not parked';
      };
      const opts = { connection: redisOptions(), prefix };
      const worker =
        side === 'oxmq'
          ? track(new Worker(pq, processor, opts))
          : track(new BullWorker(pq, processor, opts));
      await track(new Queue(pq, opts)).add('parent', {}, { jobId: 'p' });
      await waitFor(
        async () => (await redis.zscore(`${prefix}:${pq}:waiting-children`, 'p')) !== null,
      );
      await worker.close();
      const stream = await redis.xrange(`${prefix}:${pq}:events`, '-', '+');
      parked[side] = {
        event: stream
          .map(([, fields]) => fields)
          .find((fields) => fields[1] === 'waiting-children'),
        active: await redis.lrange(`${prefix}:${pq}:active`, 0, -1),
        lock: await redis.exists(`${prefix}:${pq}:p:lock`),
        stalled: await redis.smembers(`${prefix}:${pq}:stalled`),
        waitingChildren: await redis.zrange(`${prefix}:${pq}:waiting-children`, 0, -1),
        dependencies: (await redis.smembers(`${prefix}:${pq}:p:dependencies`)).map((k) =>
          k.slice(prefix.length),
        ),
      };
    }
    expect(parked.oxmq).toEqual(parked.bullmq);
    expect(parked.oxmq).toMatchObject({
      event: ['event', 'waiting-children', 'jobId', 'p', 'prev', 'active'],
      active: [],
      lock: 0,
    });
  });
});

// ---- twin flows: the same tree under two prefixes, one operated by each library ----

/** Hash fields that depend on when or by whom a job ran, not on what happened to it. */
const VOLATILE_FIELDS = new Set(['processedOn', 'finishedOn', 'pb', 'stacktrace']);
/** Keys whose content depends on timing or on which library opened the queue. */
const VOLATILE_KEYS = /:(meta|marker|stalled-check|events)$/;

/** Every key under `prefix` with its content, prefix stripped; streams are compared apart. */
async function dump(redis: Redis, prefix: string): Promise<Record<string, unknown>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  const strip = (text: string) => text.split(prefix).join('<P>');
  const out: Record<string, unknown> = {};
  for (const k of keys.sort()) {
    if (VOLATILE_KEYS.test(k)) continue;
    const type = await redis.type(k);
    let value: unknown;
    if (type === 'hash') {
      const hash = await redis.hgetall(k);
      value = Object.fromEntries(
        Object.entries(hash)
          .filter(([field]) => !VOLATILE_FIELDS.has(field))
          .map(([field, v]) => [strip(field), strip(v)])
          .sort(),
      );
    } else if (type === 'set') value = (await redis.smembers(k)).map(strip).sort();
    else if (type === 'zset') value = (await redis.zrange(k, 0, -1)).map(strip).sort();
    else if (type === 'list') value = (await redis.lrange(k, 0, -1)).map(strip);
    else value = strip(String(await redis.get(k)));
    out[strip(k)] = value;
  }
  return out;
}

/** Events written to each queue's stream since `since` (stream lengths), without ids. */
async function newEvents(
  redis: Redis,
  prefix: string,
  queues: string[],
  since: Record<string, number>,
): Promise<Record<string, string[][]>> {
  const out: Record<string, string[][]> = {};
  for (const queue of queues) {
    const entries = await redis.xrange(`${prefix}:${queue}:events`, '-', '+');
    out[queue] = entries.slice(since[queue] ?? 0).map(([, fields]) => fields);
  }
  return out;
}

async function streamLengths(redis: Redis, prefix: string, queues: string[]) {
  const out: Record<string, number> = {};
  for (const queue of queues) out[queue] = await redis.xlen(`${prefix}:${queue}:events`);
  return out;
}

interface Twin {
  side: Side;
  prefix: string;
}

function twins(label: string): Twin[] {
  const id = uniqueQueueName(label);
  return SIDES.map((side) => ({ side, prefix: `${id}-${side}` }));
}

describe('removeChildDependency leaves the state bullmq’s does', () => {
  it('detaching a child, one that already completed, and the last one (releasing the parent)', async () => {
    const redis = track(rawClient());
    const queues = ['pq', 'cq', 'cq2', 'cq3'];
    const tree: FlowJob = {
      name: 'parent',
      queueName: 'pq',
      opts: { jobId: 'p', timestamp: TS, priority: 4 },
      children: [
        { name: 'a', queueName: 'cq', opts: { jobId: 'a', timestamp: TS } },
        { name: 'b', queueName: 'cq2', opts: { jobId: 'b', timestamp: TS } },
        { name: 'ok', queueName: 'cq3', opts: { jobId: 'done', timestamp: TS } },
      ],
    };
    const pair = twins('rcd');
    for (const twin of pair) {
      await addFlow('bullmq', tree, twin.prefix);
      const worker = startChildWorker('bullmq', 'cq3', twin.prefix);
      await waitFor(async () => (await redis.zcard(`${twin.prefix}:cq3:completed`)) === 1);
      await worker.close();
    }

    const detach = async (twin: Twin, queue: string, id: string) => {
      if (twin.side === 'oxmq') {
        const q = track(new Queue(queue, { connection: redisOptions(), prefix: twin.prefix }));
        return (await q.getJob(id))!.removeChildDependency();
      }
      const q = track(new BullQueue(queue, { connection: redisOptions(), prefix: twin.prefix }));
      return (await q.getJob(id))!.removeChildDependency();
    };
    for (const [queue, id, expected] of [
      ['cq', 'a', true],
      ['cq3', 'done', false],
      ['cq2', 'b', true],
    ] as const) {
      const results: Record<string, unknown> = {};
      for (const twin of pair) {
        const since = await streamLengths(redis, twin.prefix, queues);
        const removed = await detach(twin, queue, id);
        results[twin.side] = {
          removed,
          state: await dump(redis, twin.prefix),
          events: await newEvents(redis, twin.prefix, queues, since),
        };
      }
      expect(results.oxmq).toEqual(results.bullmq);
      expect((results.oxmq as { removed: boolean }).removed).toBe(expected);
    }
    for (const twin of pair) {
      expect(await redis.lrange(`${twin.prefix}:pq:wait`, 0, -1)).toEqual(['p']);
      expect(await redis.zrange(`${twin.prefix}:pq:marker`, 0, -1)).toEqual(['0']);
    }

    // A job with no parent (any more): bullmq's script is handed no parent key and throws
    // "Missing key for parent job undefined"; ours answers false (no such link), changing nothing.
    const [bull, ours] = [pair[0]!, pair[1]!];
    const bullA = (await track(
      new BullQueue('cq', { connection: redisOptions(), prefix: bull.prefix }),
    ).getJob('a'))!;
    await expect(bullA.removeChildDependency()).rejects.toThrow(/parent/);
    const before = await dump(redis, ours.prefix);
    expect(await detach(ours, 'cq', 'a')).toBe(false);
    expect(await dump(redis, ours.prefix)).toEqual(before);
  });

  it('both refuse a child whose parent is gone', async () => {
    const pair = twins('rcm');
    const tree: FlowJob = {
      name: 'parent',
      queueName: 'pq',
      opts: { jobId: 'p' },
      children: [{ name: 'a', queueName: 'cq', opts: { jobId: 'a' } }],
    };
    const errors: Record<string, unknown> = {};
    for (const twin of pair) {
      await addFlow('bullmq', tree, twin.prefix);
      const opts = { connection: redisOptions(), prefix: twin.prefix };
      await track(new Queue('pq', opts)).remove('p', { removeChildren: false });
      errors[twin.side] =
        twin.side === 'oxmq'
          ? await (await track(new Queue('cq', opts)).getJob('a'))!
              .removeChildDependency()
              .catch((e: unknown) => e)
          : await (await track(new BullQueue('cq', opts)).getJob('a'))!
              .removeChildDependency()
              .catch((e: unknown) => e);
    }
    expect(errors.oxmq).toBeInstanceOf(ParentJobNotFoundError);
    expect(errors.bullmq).toBeInstanceOf(Error);
    expect(String((errors.bullmq as Error).message)).toMatch(/parent/i);
  });
});

describe('retrying children leaves the state bullmq’s does', () => {
  const queues = ['pq', 'cq', 'cq2'];
  /** p1 keeps waiting (a pending child in cq2); p2 is released by its failing children. */
  const trees: FlowJob[] = [
    {
      name: 'p1',
      queueName: 'pq',
      opts: { jobId: 'p1', timestamp: TS },
      children: [
        { name: 'ok', queueName: 'cq', data: { value: 1 }, opts: { jobId: 'ok1', timestamp: TS } },
        {
          name: 'fail-i',
          queueName: 'cq',
          opts: { jobId: 'ign1', timestamp: TS, ignoreDependencyOnFailure: true },
        },
        { name: 'fail-n', queueName: 'cq', opts: { jobId: 'plain1', timestamp: TS } },
        { name: 'slow', queueName: 'cq2', opts: { jobId: 'slow1', timestamp: TS } },
      ],
    },
    {
      name: 'p2',
      queueName: 'pq',
      opts: { jobId: 'p2', timestamp: TS },
      children: [
        { name: 'ok', queueName: 'cq', data: { value: 2 }, opts: { jobId: 'ok2', timestamp: TS } },
        {
          name: 'fail-fp',
          queueName: 'cq',
          opts: { jobId: 'fp2', timestamp: TS, failParentOnFailure: true },
        },
        {
          name: 'fail-c',
          queueName: 'cq',
          opts: { jobId: 'cont2', timestamp: TS, continueParentOnFailure: true },
        },
        {
          name: 'fail-r',
          queueName: 'cq',
          opts: { jobId: 'rem2', timestamp: TS, removeDependencyOnFailure: true },
        },
      ],
    },
  ];

  /** Twin flows, their cq children worked by bullmq, the worker closed again. */
  async function finishedTwins(redis: Redis, label: string): Promise<Twin[]> {
    const pair = twins(label);
    for (const twin of pair) {
      for (const tree of trees) await addFlow('bullmq', tree, twin.prefix);
      const worker = startChildWorker('bullmq', 'cq', twin.prefix);
      await waitFor(async () => (await finishedCount(redis, `${twin.prefix}:cq`)) === 7, 15_000);
      await worker.close();
    }
    // Children finishing in the same ms tie in completed/failed; give both twins the same
    // scores so that retryJobs (which reads those sets in score order) sees one order.
    for (const set of ['completed', 'failed']) {
      const scored = await redis.zrange(`${pair[0]!.prefix}:cq:${set}`, 0, -1, 'WITHSCORES');
      await redis.zadd(`${pair[1]!.prefix}:cq:${set}`, 'XX', ...scored.reverse());
    }
    expect(await dump(redis, pair[1]!.prefix)).toEqual(await dump(redis, pair[0]!.prefix));
    return pair;
  }

  async function compareAfter(
    redis: Redis,
    pair: Twin[],
    act: (
      twin: Twin,
      opts: { connection: ReturnType<typeof redisOptions>; prefix: string },
    ) => Promise<void>,
  ) {
    const results: Record<string, unknown> = {};
    for (const twin of pair) {
      const since = await streamLengths(redis, twin.prefix, queues);
      await act(twin, { connection: redisOptions(), prefix: twin.prefix });
      results[twin.side] = {
        state: await dump(redis, twin.prefix),
        events: await newEvents(redis, twin.prefix, queues, since),
      };
    }
    expect(results.oxmq).toEqual(results.bullmq);
    return results.oxmq as { state: Record<string, unknown> };
  }

  it('job.retry of each finished child', async () => {
    const redis = track(rawClient());
    const pair = await finishedTwins(redis, 'rtj');
    const finished: [string, 'completed' | 'failed'][] = [
      ['ok1', 'completed'],
      ['ign1', 'failed'],
      ['plain1', 'failed'],
      ['ok2', 'completed'],
      ['fp2', 'failed'],
      ['cont2', 'failed'],
      ['rem2', 'failed'],
    ];
    const { state } = await compareAfter(redis, pair, async (twin, opts) => {
      for (const [id, from] of finished) {
        if (twin.side === 'oxmq')
          await (await track(new Queue('cq', opts)).getJob(id))!.retry(from);
        else await (await track(new BullQueue('cq', opts)).getJob(id))!.retry(from);
      }
    });
    // The retried children are pending again; p2 (already released) stays in wait.
    expect((state['<P>:pq:p1:dependencies'] as string[]).sort()).toEqual(
      ['<P>:cq:ign1', '<P>:cq:ok1', '<P>:cq:plain1', '<P>:cq2:slow1'].sort(),
    );
    expect(state['<P>:pq:p2:dependencies']).toEqual(['<P>:cq:cont2', '<P>:cq:fp2', '<P>:cq:ok2']);
    expect(state['<P>:pq:waiting-children']).toEqual(['p1']);
    expect(state['<P>:pq:wait']).toEqual(['p2']);
    expect(state['<P>:pq:p1:processed']).toBeUndefined();
    expect(state['<P>:pq:p2:unsuccessful']).toBeUndefined();

    // The twin retried by OxMQ runs on: bullmq works the retried children, each outcome lands
    // in its parent again; p1 still waits for plain1 (failed without a policy) and slow1.
    const ours = pair.find((twin) => twin.side === 'oxmq')!;
    const worker = startChildWorker('bullmq', 'cq', ours.prefix);
    await waitFor(async () => (await finishedCount(redis, `${ours.prefix}:cq`)) === 7, 15_000);
    await worker.close();
    const p1 = await bothJobs('pq', 'p1', ours.prefix);
    expect(await p1.theirs.getChildrenValues()).toEqual({ [key('cq', 'ok1', ours.prefix)]: 1 });
    expect(await p1.ours.getIgnoredChildrenFailures()).toEqual({
      [key('cq', 'ign1', ours.prefix)]: 'fail-i boom',
    });
    startChildWorker('oxmq', 'cq2', ours.prefix);
    await waitFor(async () => (await redis.zcard(`${ours.prefix}:cq2:completed`)) === 1);
    expect(await p1.ours.getState()).toBe('waiting-children');
    // Giving up on plain1 releases p1.
    const plain1 = (await bothJobs('cq', 'plain1', ours.prefix)).ours;
    expect(await plain1.removeChildDependency()).toBe(true);
    expect(await p1.theirs.getState()).toBe('waiting');
    expect(await p1.theirs.getDependenciesCount()).toEqual({
      processed: 2,
      unprocessed: 0,
      ignored: 1,
      failed: 0,
    });
  });

  it('queue.retryJobs of failed, then completed children', async () => {
    const redis = track(rawClient());
    const pair = await finishedTwins(redis, 'rtq');
    for (const state of ['failed', 'completed'] as const) {
      await compareAfter(redis, pair, async (twin, opts) => {
        if (twin.side === 'oxmq') await track(new Queue('cq', opts)).retryJobs({ state });
        else await track(new BullQueue('cq', opts)).retryJobs({ state });
      });
    }
    const ours = pair.find((twin) => twin.side === 'oxmq')!;
    expect(await redis.llen(`${ours.prefix}:cq:wait`)).toBe(7);
  });
});
