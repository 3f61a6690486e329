/**
 * Flow interop with the real bullmq 6.7.0, docs/redis-keys.md cases 13-16 (B = bullmq, N = OxMQ),
 * every case in both directions: one library's FlowProducer writes the tree, the other
 * library's workers run it.
 * 13/14. Children in C1 and P; the parent runs only after its last child, ahead of the jobs
 *        already waiting in P (RPUSH), with its children's results in `:processed`.
 * 15.    failParentOnFailure: deferred failure, `:unsuccessful`, the parent failed unprocessed.
 * 16.    ignoreDependencyOnFailure / removeDependencyOnFailure / continueParentOnFailure.
 * Also: a released parent keeps its priority or delay; the same flow written by each library is
 * byte-identical; getChildrenValues (bullmq's Job API) agrees on data of either library.
 */
import { Queue as BullQueue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup, type Track } from '../helpers/cleanup';
import {
  addFlow,
  gate,
  label,
  other,
  SIDES,
  startWorker,
  type FlowSideJob,
  type SharedFlow,
  type Side,
} from '../helpers/flow-sides';
import { normalizedFlowDump, processedValues } from '../helpers/flow-state';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import { readStream } from '../helpers/redis-state';

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });
const key = (queue: string, id: string) => `bull:${queue}:${id}`;
const DIRECTIONS: { producer: Side; consumer: Side }[] = [
  { producer: 'oxmq', consumer: 'bullmq' },
  { producer: 'bullmq', consumer: 'oxmq' },
];
const title = (d: { producer: Side; consumer: Side }) =>
  `${label(d.producer)} flow → ${label(d.consumer)} workers`;

/** Event entries (field maps) of one job on a queue's stream, oldest first. */
async function jobEvents(redis: Redis, queue: string, jobId: string) {
  return (await readStream(redis, key(queue, 'events')))
    .map((entry) => entry.fields)
    .filter((fields) => fields.jobId === jobId);
}

/** `waiting prev=waiting-children` entries of a job: its releases from waiting-children. */
async function releases(redis: Redis, queue: string, jobId: string) {
  return (await jobEvents(redis, queue, jobId)).filter(
    (f) => f.event === 'waiting' && f.prev === 'waiting-children',
  );
}

async function bullJob(queue: string, jobId: string) {
  const bq = track(new BullQueue(queue, conn()));
  const job = await bq.getJob(jobId);
  if (!job) throw new Error(`bullmq cannot read ${queue}:${jobId}`);
  return job;
}

/** A plain job added with the producing side's Queue. */
async function addPlain(t: Track, side: Side, queue: string, name: string): Promise<string> {
  if (side === 'oxmq') return (await t(new Queue(queue, conn())).add(name, {})).id;
  return (await t(new BullQueue(queue, conn())).add(name, {})).id!;
}

/** The children results a parent processor sees, through its own library's API. */
async function childrenValuesIn(redis: Redis, job: FlowSideJob): Promise<unknown> {
  if (job.raw.side === 'bullmq') return job.raw.job.getChildrenValues();
  return processedValues(redis, job.key);
}

const inWait = async (redis: Redis, queue: string, id: string) =>
  (await redis.lrange(key(queue, 'wait'), 0, -1)).includes(id);
const inSet = async (redis: Redis, queue: string, set: string, id: string) =>
  (await redis.zscore(key(queue, set), id)) !== null;

describe('interop: a flow across queues, written by one library, run by the other', () => {
  for (const direction of DIRECTIONS) {
    it(`${title(direction)}: parent runs after its last child, at the front of P`, async () => {
      const { producer, consumer } = direction;
      const redis = track(rawClient());
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const ids: Record<string, string> = {};
      const lastChild = gate();
      const values: Record<string, unknown> = {
        c1: { n: 1, nested: [true, null] },
        c2: 'two',
        c3: 3,
      };

      const parentId = await addFlow(track, producer, {
        name: 'parent',
        queueName: P,
        data: { role: 'parent' },
        children: [
          { name: 'c1', queueName: C1, data: { i: 1 } },
          { name: 'c2', queueName: C1, data: { i: 2 } },
          { name: 'c3', queueName: P, data: { i: 3 } },
        ],
      });
      // Node ids are UUID v4s when no jobId is given (bullmq 6).
      expect(parentId).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(await inSet(redis, P, 'waiting-children', parentId)).toBe(true);

      const childProcessor = async (job: FlowSideJob) => {
        ids[job.name] = job.id;
        if (job.name === 'c2') await lastChild.opened;
        return values[job.name];
      };
      // Phase 1: the child in P runs; the parent must not (its C1 children are pending).
      const pChildren = startWorker(track, consumer, P, childProcessor);
      await waitFor(() => pChildren.completed.length === 1);
      await pChildren.close();
      expect(pChildren.calls).toEqual([ids.c3]);

      // Jobs that wait in P before the parent is released.
      const plain: string[] = [];
      for (const name of ['w1', 'w2', 'w3']) plain.push(await addPlain(track, producer, P, name));

      // Phase 2: C1 children; c2 is held, so the parent must keep waiting.
      const c1Worker = startWorker(track, consumer, C1, childProcessor, { concurrency: 2 });
      await waitFor(() => c1Worker.completed.length === 1 && ids.c2 !== undefined);
      expect(c1Worker.completed).toEqual([ids.c1]);
      expect(await inSet(redis, P, 'waiting-children', parentId)).toBe(true);
      expect(await redis.lrange(key(P, 'wait'), 0, -1)).toEqual([...plain].reverse());
      expect(await releases(redis, P, parentId)).toEqual([]);
      expect(await (await bullJob(P, parentId)).getDependenciesCount()).toEqual({
        processed: 2,
        unprocessed: 1,
        ignored: 0,
        failed: 0,
      });

      // The last child completes: the parent goes to the front of P (RPUSH, next out).
      lastChild.open();
      await waitFor(() => inWait(redis, P, parentId));
      expect(await redis.lrange(key(P, 'wait'), 0, -1)).toEqual(
        [...plain].reverse().concat(parentId),
      );
      expect(await inSet(redis, P, 'waiting-children', parentId)).toBe(false);
      expect(await redis.exists(`${key(P, parentId)}:dependencies`)).toBe(0);
      expect(await redis.hgetall(`${key(P, parentId)}:processed`)).toEqual({
        [key(C1, ids.c1!)]: JSON.stringify(values.c1),
        [key(C1, ids.c2!)]: JSON.stringify(values.c2),
        [key(P, ids.c3!)]: JSON.stringify(values.c3),
      });
      expect((await jobEvents(redis, P, parentId)).map((f) => [f.event, f.prev ?? ''])).toEqual([
        ['added', ''],
        ['waiting-children', ''],
        ['waiting', 'waiting-children'],
      ]);

      // Phase 3: P runs the parent first, then the jobs that were waiting before it.
      const expected = {
        [key(C1, ids.c1!)]: values.c1,
        [key(C1, ids.c2!)]: values.c2,
        [key(P, ids.c3!)]: values.c3,
      };
      let seenByParent: unknown;
      const pWorker = startWorker(track, consumer, P, async (job) => {
        if (job.name === 'parent') seenByParent = await childrenValuesIn(redis, job);
        return job.name;
      });
      await waitFor(() => pWorker.completed.length === 4);
      expect(pWorker.calls).toEqual([parentId, ...plain]);
      expect(seenByParent).toEqual(expected);
      const parent = await bullJob(P, parentId);
      expect(await parent.getChildrenValues()).toEqual(expected);
      expect(await parent.getState()).toBe('completed');
      expect(parent.returnvalue).toBe('parent');
      expect(await parent.getDependenciesCount()).toEqual({
        processed: 3,
        unprocessed: 0,
        ignored: 0,
        failed: 0,
      });
      expect([...pChildren.errors, ...c1Worker.errors, ...pWorker.errors]).toEqual([]);
    });
  }
});

describe('interop: failParentOnFailure', () => {
  for (const direction of DIRECTIONS) {
    const parentSide = other(direction.consumer);
    it(`${title(direction)}, parent failed by ${label(parentSide)} without running its processor`, async () => {
      const { producer, consumer } = direction;
      const redis = track(rawClient());
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const C2 = uniqueQueueName('C2');
      const parentId = await addFlow(track, producer, {
        name: 'parent',
        queueName: P,
        opts: { jobId: 'fp-parent' },
        children: [
          {
            name: 'bad',
            queueName: C1,
            opts: { jobId: 'bad', failParentOnFailure: true, attempts: 2 },
          },
          // Never processed: a pending sibling does not hold back the deferred failure.
          { name: 'pending', queueName: C2, opts: { jobId: 'pending' } },
        ],
      });
      const parentKey = key(P, parentId);
      const badKey = key(C1, 'bad');

      // Retries do not touch the parent: seen from inside the second attempt.
      let duringRetry: unknown;
      const childWorker = startWorker(track, consumer, C1, async (job) => {
        if (job.attemptsMade === 1) {
          duringRetry = {
            defa: await redis.hget(parentKey, 'defa'),
            unsuccessful: await redis.zcard(`${parentKey}:unsuccessful`),
            dependencies: (await redis.smembers(`${parentKey}:dependencies`)).sort(),
            waitingChildren: await inSet(redis, P, 'waiting-children', parentId),
          };
        }
        throw new Error(`boom ${job.attemptsMade + 1}`);
      });
      await waitFor(() => childWorker.failed.length === 2);
      expect(duringRetry).toEqual({
        defa: null,
        unsuccessful: 0,
        dependencies: [badKey, key(C2, 'pending')].sort(),
        waitingChildren: true,
      });

      const reason = `child ${badKey} failed`;
      await waitFor(() => inWait(redis, P, parentId));
      expect(await redis.hget(parentKey, 'defa')).toBe(reason);
      const badFinishedOn = await redis.hget(badKey, 'finishedOn');
      expect(await redis.zrange(`${parentKey}:unsuccessful`, 0, -1, 'WITHSCORES')).toEqual([
        badKey,
        badFinishedOn,
      ]);
      expect(await redis.smembers(`${parentKey}:dependencies`)).toEqual([key(C2, 'pending')]);
      expect(await inSet(redis, P, 'waiting-children', parentId)).toBe(false);
      expect(await releases(redis, P, parentId)).toHaveLength(1);
      expect(await (await bullJob(P, parentId)).getDependenciesCount()).toEqual({
        processed: 0,
        unprocessed: 1,
        ignored: 0,
        failed: 1,
      });

      // The other library's worker fails the parent; its processor is never called.
      const parentWorker = startWorker(track, parentSide, P, async () => 'should not run');
      await waitFor(() => parentWorker.failed.length === 1);
      expect(parentWorker.calls).toEqual([]);
      expect(parentWorker.failed).toEqual([{ id: parentId, reason }]);
      expect(await redis.hget(parentKey, 'failedReason')).toBe(reason);
      expect(await inSet(redis, P, 'failed', parentId)).toBe(true);
      const tail = (await jobEvents(redis, P, parentId)).slice(-2);
      expect(tail).toEqual([
        { event: 'failed', jobId: parentId, failedReason: reason, prev: 'active' },
        { event: 'retries-exhausted', jobId: parentId, attemptsMade: '1' },
      ]);
      expect(await redis.zrange(`${parentKey}:unsuccessful`, 0, -1)).toEqual([badKey]);
      const parent = await bullJob(P, parentId);
      expect(await parent.getState()).toBe('failed');
      expect(parent.failedReason).toBe(reason);
      expect(parent.attemptsMade).toBe(1);
      expect([...childWorker.errors, ...parentWorker.errors]).toEqual([]);
    });
  }
});

describe('interop: ignoreDependencyOnFailure and removeDependencyOnFailure', () => {
  for (const direction of DIRECTIONS) {
    for (const lastPolicy of ['idof', 'rdof'] as const) {
      it(`${title(direction)}: failures recorded or dropped, parent released when nothing is pending (last child ${lastPolicy})`, async () => {
        const { producer, consumer } = direction;
        const redis = track(rawClient());
        const P = uniqueQueueName('P');
        const C1 = uniqueQueueName('C1');
        const C2 = uniqueQueueName('C2');
        const policy =
          lastPolicy === 'idof'
            ? { ignoreDependencyOnFailure: true }
            : { removeDependencyOnFailure: true };
        const parentId = await addFlow(track, producer, {
          name: 'parent',
          queueName: P,
          opts: { jobId: 'ir-parent' },
          children: [
            { name: 'ok', queueName: C1, opts: { jobId: 'ok' } },
            { name: 'ign', queueName: C1, opts: { jobId: 'ign', ignoreDependencyOnFailure: true } },
            { name: 'rem', queueName: C1, opts: { jobId: 'rem', removeDependencyOnFailure: true } },
            { name: 'last', queueName: C2, opts: { jobId: 'last', ...policy } },
          ],
        });
        const parentKey = key(P, parentId);
        const held = gate();
        const processor = async (job: FlowSideJob) => {
          if (job.name === 'ok') return { fine: true };
          if (job.name === 'last') await held.opened;
          throw new Error(`${job.name} failed`);
        };
        const c1Worker = startWorker(track, consumer, C1, processor);
        const c2Worker = startWorker(track, consumer, C2, processor);
        await waitFor(() => c1Worker.completed.length + c1Worker.failed.length === 3);
        await waitFor(() => c2Worker.calls.length === 1);

        expect(await inSet(redis, P, 'waiting-children', parentId)).toBe(true);
        expect(await releases(redis, P, parentId)).toEqual([]);
        expect(await redis.hgetall(`${parentKey}:failed`)).toEqual({
          [key(C1, 'ign')]: 'ign failed',
        });
        expect(await redis.hgetall(`${parentKey}:processed`)).toEqual({
          [key(C1, 'ok')]: '{"fine":true}',
        });
        expect(await redis.smembers(`${parentKey}:dependencies`)).toEqual([key(C2, 'last')]);
        expect(await redis.exists(`${parentKey}:unsuccessful`)).toBe(0);
        const waiting = await bullJob(P, parentId);
        expect(await waiting.getIgnoredChildrenFailures()).toEqual({
          [key(C1, 'ign')]: 'ign failed',
        });
        expect(await waiting.getDependenciesCount()).toEqual({
          processed: 1,
          unprocessed: 1,
          ignored: 1,
          failed: 0,
        });

        // The last pending child fails: with either policy the parent is released.
        held.open();
        await waitFor(() => inWait(redis, P, parentId));
        expect(await releases(redis, P, parentId)).toHaveLength(1);
        expect(await redis.exists(`${parentKey}:dependencies`)).toBe(0);
        const ignored: Record<string, string> = { [key(C1, 'ign')]: 'ign failed' };
        if (lastPolicy === 'idof') ignored[key(C2, 'last')] = 'last failed';
        expect(await redis.hgetall(`${parentKey}:failed`)).toEqual(ignored);
        const released = await bullJob(P, parentId);
        expect(await released.getIgnoredChildrenFailures()).toEqual(ignored);
        expect(await released.getDependenciesCount()).toEqual({
          processed: 1,
          unprocessed: 0,
          ignored: Object.keys(ignored).length,
          failed: 0,
        });

        let seen: unknown;
        const pWorker = startWorker(track, consumer, P, async (job) => {
          seen = await childrenValuesIn(redis, job);
          return 'parent done';
        });
        await waitFor(() => pWorker.completed.length === 1);
        expect(seen).toEqual({ [key(C1, 'ok')]: { fine: true } });
        expect(await redis.hget(parentKey, 'returnvalue')).toBe('"parent done"');
        expect([...c1Worker.errors, ...c2Worker.errors, ...pWorker.errors]).toEqual([]);
      });
    }
  }
});

describe('interop: continueParentOnFailure', () => {
  for (const direction of DIRECTIONS) {
    it(`${title(direction)}: the parent is released at once, pending siblings or not`, async () => {
      const { producer, consumer } = direction;
      const redis = track(rawClient());
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const C2 = uniqueQueueName('C2');
      const parentId = await addFlow(track, producer, {
        name: 'parent',
        queueName: P,
        opts: { jobId: 'cp-parent' },
        children: [
          { name: 'bad', queueName: C1, opts: { jobId: 'bad', continueParentOnFailure: true } },
          { name: 'slow', queueName: C2, opts: { jobId: 'slow' } },
        ],
      });
      const parentKey = key(P, parentId);
      const badWorker = startWorker(track, consumer, C1, async () => {
        throw new Error('bad failed');
      });
      await waitFor(() => inWait(redis, P, parentId));
      // The worker's `failed` event follows its script's reply, which may arrive after the
      // parent already shows in wait.
      await waitFor(() => badWorker.failed.length > 0);
      expect(badWorker.failed).toEqual([{ id: 'bad', reason: 'bad failed' }]);
      expect(await releases(redis, P, parentId)).toHaveLength(1);
      // Released while `slow` is still pending.
      expect(await redis.smembers(`${parentKey}:dependencies`)).toEqual([key(C2, 'slow')]);
      expect(await redis.hgetall(`${parentKey}:failed`)).toEqual({
        [key(C1, 'bad')]: 'bad failed',
      });
      expect(await redis.exists(`${parentKey}:unsuccessful`)).toBe(0);
      expect(await redis.hget(parentKey, 'defa')).toBeNull();
      const released = await bullJob(P, parentId);
      expect(await released.getIgnoredChildrenFailures()).toEqual({
        [key(C1, 'bad')]: 'bad failed',
      });
      expect(await released.getDependenciesCount()).toEqual({
        processed: 0,
        unprocessed: 1,
        ignored: 1,
        failed: 0,
      });

      // The sibling finishes later: its result lands, the parent is not moved again.
      const slowWorker = startWorker(track, consumer, C2, async () => 'slow result');
      await waitFor(() => slowWorker.completed.length === 1);
      expect(await redis.hgetall(`${parentKey}:processed`)).toEqual({
        [key(C2, 'slow')]: '"slow result"',
      });
      expect(await redis.exists(`${parentKey}:dependencies`)).toBe(0);
      expect(await redis.lrange(key(P, 'wait'), 0, -1)).toEqual([parentId]);
      expect(await releases(redis, P, parentId)).toHaveLength(1);

      let seen: unknown;
      const pWorker = startWorker(track, consumer, P, async (job) => {
        seen = await childrenValuesIn(redis, job);
        return 'continued';
      });
      await waitFor(() => pWorker.completed.length === 1);
      expect(seen).toEqual({ [key(C2, 'slow')]: 'slow result' });
      expect(await (await bullJob(P, parentId)).getState()).toBe('completed');
      expect([...badWorker.errors, ...slowWorker.errors, ...pWorker.errors]).toEqual([]);
    });
  }
});

describe('interop: failure policies meeting a released parent', () => {
  for (const direction of DIRECTIONS) {
    it(`${title(direction)}: a failParentOnFailure child failing while its parent is delayed sends it to wait with delay 0`, async () => {
      const { producer, consumer } = direction;
      const redis = track(rawClient());
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const C2 = uniqueQueueName('C2');
      const delay = 60_000;
      const parentId = await addFlow(track, producer, {
        name: 'parent',
        queueName: P,
        opts: { jobId: 'dl-parent', delay },
        children: [
          { name: 'early', queueName: C1, opts: { jobId: 'early', continueParentOnFailure: true } },
          { name: 'fatal', queueName: C2, opts: { jobId: 'fatal', failParentOnFailure: true } },
        ],
      });
      const parentKey = key(P, parentId);
      const fail = async (job: FlowSideJob) => {
        throw new Error(`${job.name} failed`);
      };
      // cpof releases the parent early, by its own delay.
      const c1Worker = startWorker(track, consumer, C1, fail);
      await waitFor(() => inSet(redis, P, 'delayed', parentId));
      const earlyFinished = Number(await redis.hget(key(C1, 'early'), 'finishedOn'));
      expect(await redis.zscore(key(P, 'delayed'), parentId)).toBe(
        String((earlyFinished + delay) * 4096),
      );

      // Then the fpof sibling fails: out of delayed, into wait, delay reset, deferred failure.
      const c2Worker = startWorker(track, consumer, C2, fail);
      await waitFor(() => inWait(redis, P, parentId));
      expect(await inSet(redis, P, 'delayed', parentId)).toBe(false);
      expect(await redis.hget(parentKey, 'delay')).toBe('0');
      expect(await redis.hget(parentKey, 'defa')).toBe(`child ${key(C2, 'fatal')} failed`);
      expect(await redis.zrange(`${parentKey}:unsuccessful`, 0, -1)).toEqual([key(C2, 'fatal')]);

      const pWorker = startWorker(track, consumer, P, async () => 'must not run');
      await waitFor(() => pWorker.failed.length === 1);
      expect(pWorker.calls).toEqual([]);
      expect(await redis.hget(parentKey, 'failedReason')).toBe(`child ${key(C2, 'fatal')} failed`);
      expect([...c1Worker.errors, ...c2Worker.errors, ...pWorker.errors]).toEqual([]);
    });
  }

  it('a continueParentOnFailure parent run while a sibling is pending fails alike in both libraries', async () => {
    const redis = track(rawClient());
    const outcomes: Partial<Record<Side, unknown>> = {};
    for (const side of SIDES) {
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const C2 = uniqueQueueName('C2');
      const parentId = await addFlow(track, other(side), {
        name: 'parent',
        queueName: P,
        opts: { jobId: 'cp-early' },
        children: [
          { name: 'bad', queueName: C1, opts: { jobId: 'bad', continueParentOnFailure: true } },
          { name: 'never', queueName: C2, opts: { jobId: 'never' } },
        ],
      });
      const c1Worker = startWorker(track, side, C1, async () => {
        throw new Error('bad failed');
      });
      await waitFor(() => inWait(redis, P, parentId));
      const pWorker = startWorker(track, side, P, async () => 'tried to complete');
      await waitFor(() => pWorker.failed.length === 1);
      const hash = await redis.hgetall(key(P, parentId));
      outcomes[side] = {
        calls: pWorker.calls,
        reasonMatches: /has pending dependencies/.test(hash.failedReason ?? ''),
        failed: await inSet(redis, P, 'failed', parentId),
        atm: hash.atm,
        returnvalue: hash.returnvalue ?? null,
        dependencies: await redis.smembers(`${key(P, parentId)}:dependencies`),
        lastEvents: (await jobEvents(redis, P, parentId)).slice(-2).map((f) => f.event),
      };
      expect(outcomes[side]).toMatchObject({ reasonMatches: true });
      expect(outcomes[side]).toMatchObject({ dependencies: [key(C2, 'never')] });
      // (bullmq's worker also reports the refusal as an `error` event; that is its own business.)
      expect(c1Worker.errors).toEqual([]);
      // Keys differ by queue name; compare the rest across libraries.
      (outcomes[side] as { dependencies: unknown }).dependencies = 1;
    }
    expect(outcomes.oxmq).toEqual(outcomes.bullmq);
    expect(outcomes.bullmq).toMatchObject({
      calls: ['cp-early'],
      failed: true,
      atm: '1',
      returnvalue: null,
      lastEvents: ['failed', 'retries-exhausted'],
    });
  });
});

describe('interop: a released parent keeps its priority or delay', () => {
  for (const direction of DIRECTIONS) {
    it(`${title(direction)}: priority → prioritized score priority·2³² + pc`, async () => {
      const { producer, consumer } = direction;
      const redis = track(rawClient());
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const parentId = await addFlow(track, producer, {
        name: 'parent',
        queueName: P,
        opts: { priority: 7 },
        children: [{ name: 'child', queueName: C1 }],
      });
      const worker = startWorker(track, consumer, C1, async () => 'ok');
      await waitFor(() => inSet(redis, P, 'prioritized', parentId));
      const pc = Number(await redis.get(key(P, 'pc')));
      expect(pc).toBeGreaterThan(0);
      expect(await redis.zscore(key(P, 'prioritized'), parentId)).toBe(String(7 * 2 ** 32 + pc));
      expect(await redis.llen(key(P, 'wait'))).toBe(0);
      expect(await redis.zscore(key(P, 'marker'), '0')).toBe('0');
      expect(await releases(redis, P, parentId)).toHaveLength(1);
      expect(await (await bullJob(P, parentId)).getState()).toBe('prioritized');
      expect(worker.errors).toEqual([]);
    });

    it(`${title(direction)}: delay → delayed score (now + delay)·4096, never run early`, async () => {
      const { producer, consumer } = direction;
      const redis = track(rawClient());
      const P = uniqueQueueName('P');
      const C1 = uniqueQueueName('C1');
      const delay = 1500;
      const parentId = await addFlow(track, producer, {
        name: 'parent',
        queueName: P,
        opts: { delay },
        children: [{ name: 'child', queueName: C1, opts: { jobId: 'child' } }],
      });
      const worker = startWorker(track, consumer, C1, async () => 'ok');
      await waitFor(() => inSet(redis, P, 'delayed', parentId));
      const finishedOn = Number(await redis.hget(key(C1, 'child'), 'finishedOn'));
      const due = finishedOn + delay;
      expect(await redis.zscore(key(P, 'delayed'), parentId)).toBe(String(due * 4096));
      expect(await redis.llen(key(P, 'wait'))).toBe(0);
      const events = await jobEvents(redis, P, parentId);
      expect(events.at(-1)).toEqual({ event: 'delayed', jobId: parentId, delay: String(due) });
      expect(await (await bullJob(P, parentId)).getState()).toBe('delayed');

      const pWorker = startWorker(track, consumer, P, async () => 'late');
      await waitFor(() => pWorker.completed.length === 1, 15_000);
      expect(Number(await redis.hget(key(P, parentId), 'processedOn'))).toBeGreaterThanOrEqual(due);
      expect([...worker.errors, ...pWorker.errors]).toEqual([]);
    });
  }
});

/** A tree with every node feature the wire carries: ids, timestamps, policies, nesting. */
function fullTree(P: string, C1: string, C2: string, timestamp: number): SharedFlow {
  return {
    name: 'root',
    queueName: P,
    data: { order: 17, tags: ['a', 'b'], none: null },
    opts: { jobId: 'root', timestamp, priority: 3, attempts: 2, backoff: 250 },
    children: [
      {
        name: 'fp',
        queueName: C1,
        data: { k: 'fp' },
        opts: { jobId: 'fp', timestamp, failParentOnFailure: true },
      },
      {
        name: 'cp',
        queueName: C1,
        data: 'text',
        opts: { jobId: 'cp', timestamp, continueParentOnFailure: true, priority: 4 },
      },
      {
        name: 'ig',
        queueName: C2,
        data: 42,
        opts: { jobId: 'ig', timestamp, ignoreDependencyOnFailure: true, delay: 5000 },
      },
      {
        name: 'rd',
        queueName: C2,
        opts: { jobId: 'rd', timestamp, removeDependencyOnFailure: true, lifo: true },
      },
      {
        name: 'mid',
        queueName: P,
        data: { level: 1 },
        opts: {
          jobId: 'mid',
          timestamp,
          delay: 1000,
          removeOnComplete: 5,
          removeOnFail: { age: 60 },
        },
        children: [
          {
            name: 'leaf',
            queueName: C1,
            data: { level: 2 },
            opts: {
              jobId: 'leaf',
              timestamp,
              keepLogs: 3,
              attempts: 4,
              backoff: { type: 'exponential', delay: 100 },
            },
          },
          { name: 'plain', queueName: C2, opts: { jobId: 'plain', timestamp } },
        ],
      },
    ],
  };
}

describe('interop: a flow is written byte for byte as bullmq writes it', () => {
  it('the same tree from each FlowProducer: hashes, dependencies, scores, lists, counters, events', async () => {
    const redis = track(rawClient());
    const [P, C1, C2] = [uniqueQueueName('P'), uniqueQueueName('C1'), uniqueQueueName('C2')];
    const timestamp = 1_767_000_000_123;
    const dumps: Partial<Record<Side, Awaited<ReturnType<typeof normalizedFlowDump>>>> = {};
    for (const side of SIDES) {
      const prefix = uniqueQueueName(`bc-${label(side)}`);
      await addFlow(track, side, fullTree(P, C1, C2, timestamp), {
        prefix,
        queuesOptions: { [C2]: { defaultJobOptions: { attempts: 3, removeOnComplete: true } } },
      });
      dumps[side] = await normalizedFlowDump(redis, prefix);
    }
    const n = dumps.oxmq!;
    const b = dumps.bullmq!;
    expect(Object.keys(n).sort()).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(b)) expect({ key: k, ...n[k] }).toEqual({ key: k, ...b[k] });
    // The oracle is not vacuous: it saw the tree.
    expect(b[`<P>:${P}:root:dependencies`]?.value).toEqual(
      [`<P>:${C1}:cp`, `<P>:${C1}:fp`, `<P>:${C2}:ig`, `<P>:${C2}:rd`, `<P>:${P}:mid`].sort(),
    );
    expect(b[`<P>:${C1}:fp`]?.value).toMatchObject({
      parentKey: `<P>:${P}:root`,
      parent: JSON.stringify({ id: 'root', queueKey: `<P>:${P}`, fpof: true }),
    });
  });

  it('a flow attached under an existing job (root opts.parent) is written alike', async () => {
    const redis = track(rawClient());
    const [H, P, C1] = [uniqueQueueName('H'), uniqueQueueName('P'), uniqueQueueName('C1')];
    const timestamp = 1_767_000_000_456;
    const dumps: Partial<Record<Side, Awaited<ReturnType<typeof normalizedFlowDump>>>> = {};
    for (const side of SIDES) {
      const prefix = uniqueQueueName(`bca-${label(side)}`);
      await addFlow(
        track,
        side,
        {
          name: 'host',
          queueName: H,
          opts: { jobId: 'host', timestamp },
          children: [{ name: 'first', queueName: C1, opts: { jobId: 'first', timestamp } }],
        },
        { prefix },
      );
      await addFlow(
        track,
        side,
        {
          name: 'sub',
          queueName: P,
          opts: {
            jobId: 'sub',
            timestamp,
            parent: { id: 'host', queue: `${prefix}:${H}` },
            failParentOnFailure: true,
          },
          children: [{ name: 'subchild', queueName: C1, opts: { jobId: 'subchild', timestamp } }],
        },
        { prefix },
      );
      dumps[side] = await normalizedFlowDump(redis, prefix);
    }
    expect(dumps.oxmq).toEqual(dumps.bullmq);
    expect(dumps.bullmq![`<P>:${H}:host:dependencies`]?.value).toEqual([
      `<P>:${C1}:first`,
      `<P>:${P}:sub`,
    ]);
  });
});

describe('interop: getChildrenValues agrees on data of either library', () => {
  it('twin flows run end to end by each library read the same through bullmq’s Job API', async () => {
    const redis = track(rawClient());
    type View = {
      values: unknown;
      ignored: unknown;
      counts: unknown;
      returnvalue: unknown;
      midValues: unknown;
    };
    const views: Partial<Record<Side, View>> = {};
    for (const side of SIDES) {
      const [P, C1] = [uniqueQueueName('P'), uniqueQueueName('C1')];
      const tree: SharedFlow = {
        name: 'root',
        queueName: P,
        opts: { jobId: 'root' },
        children: [
          { name: 'a', queueName: C1, data: { v: 1 }, opts: { jobId: 'a' } },
          { name: 'b', queueName: C1, data: { v: 'x' }, opts: { jobId: 'b' } },
          {
            name: 'broken',
            queueName: C1,
            opts: { jobId: 'broken', ignoreDependencyOnFailure: true },
          },
          {
            name: 'mid',
            queueName: P,
            opts: { jobId: 'mid' },
            children: [{ name: 'c', queueName: C1, data: { v: [1, 2] }, opts: { jobId: 'c' } }],
          },
        ],
      };
      await addFlow(track, side, tree);
      const processor = async (job: FlowSideJob) => {
        if (job.name === 'broken') throw new Error('broken on purpose');
        if (job.name === 'mid' || job.name === 'root') {
          const seen = (await childrenValuesIn(redis, job)) as Record<string, unknown>;
          return { name: job.name, children: Object.keys(seen).length };
        }
        return { name: job.name, data: job.data };
      };
      const c1 = startWorker(track, side, C1, processor);
      const p = startWorker(track, side, P, processor);
      await waitFor(() => p.completed.includes('root'));
      const root = await bullJob(P, 'root');
      const mid = await bullJob(P, 'mid');
      const strip = (value: unknown) =>
        JSON.parse(
          JSON.stringify(value).split(`bull:${P}:`).join('P:').split(`bull:${C1}:`).join('C1:'),
        ) as unknown;
      views[side] = {
        values: strip(await root.getChildrenValues()),
        ignored: strip(await root.getIgnoredChildrenFailures()),
        counts: await root.getDependenciesCount(),
        returnvalue: root.returnvalue,
        midValues: strip(await mid.getChildrenValues()),
      };
      expect([...c1.errors, ...p.errors]).toEqual([]);
    }
    expect(views.oxmq).toEqual(views.bullmq);
    expect(views.bullmq).toEqual({
      values: {
        'C1:a': { name: 'a', data: { v: 1 } },
        'C1:b': { name: 'b', data: { v: 'x' } },
        'P:mid': { name: 'mid', children: 1 },
      },
      ignored: { 'C1:broken': 'broken on purpose' },
      counts: { processed: 3, unprocessed: 0, ignored: 1, failed: 0 },
      returnvalue: { name: 'root', children: 3 },
      midValues: { 'C1:c': { name: 'c', data: { v: [1, 2] } } },
    });
  });
});
