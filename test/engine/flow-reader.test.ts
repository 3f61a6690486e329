/**
 * readFlow: the tree under a job, read with bounds (depth levels, maxChildren
 * per node, one pipelined round trip per level), equal to what bullmq 6.7.0's
 * FlowProducer.getFlow returns for the same Redis data, whichever library wrote the flow.
 */
import {
  FlowProducer as BullFlowProducer,
  type FlowJob as BullFlowJob,
  type JobNode as BullJobNode,
} from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  FlowProducer,
  redisStorage,
  ValidationError,
  Worker,
  type FlowJob,
  type JobNode,
} from 'oxmq';
import { readFlow, type ReadFlowOptions } from 'oxmq/internals';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

/** What both libraries' trees are compared on. */
interface Shape {
  id: string;
  name: string;
  queueName: string;
  data: unknown;
  returnvalue: unknown;
  failedReason?: string;
  parentKey?: string;
  timestamp: number;
  attemptsMade: number;
  children?: (Shape | null)[];
}

interface AnyJob {
  id?: string;
  name: string;
  queueName: string;
  data: unknown;
  returnvalue: unknown;
  failedReason?: string;
  parentKey?: string;
  timestamp: number;
  attemptsMade: number;
}

interface AnyNode {
  job: AnyJob;
  children?: (AnyNode | undefined)[];
}

function shapeOf(node: AnyNode): Shape {
  const { job } = node;
  const shape: Shape = {
    id: job.id ?? '',
    name: job.name,
    queueName: job.queueName,
    data: job.data,
    returnvalue: job.returnvalue,
    timestamp: job.timestamp,
    attemptsMade: job.attemptsMade,
  };
  if (job.failedReason !== undefined) shape.failedReason = job.failedReason;
  if (job.parentKey !== undefined) shape.parentKey = job.parentKey;
  if (node.children) shape.children = node.children.map((c) => (c ? shapeOf(c) : null));
  return shape;
}

const ids = (node: AnyNode | undefined) => (node?.children ?? []).map((c) => c?.job.id ?? null);

function levels(node: AnyNode | undefined): number {
  if (!node) return 0;
  return 1 + Math.max(0, ...(node.children ?? []).map((c) => levels(c)));
}

interface Sides {
  redis: Redis;
  ours: FlowProducer;
  bull: BullFlowProducer;
  read(opts: ReadFlowOptions): Promise<JobNode | undefined>;
  bullRead(opts: ReadFlowOptions): Promise<BullJobNode | undefined>;
}

function open(prefix?: string, connection = redisOptions()): Sides {
  const redis = track(new Redis(connection));
  const ours = track(
    prefix === undefined
      ? new FlowProducer({ connection })
      : new FlowProducer({ connection, prefix }),
  );
  const bull = track(new BullFlowProducer({ connection, ...(prefix ? { prefix } : {}) }));
  // Trees read through the Redis storage over the test's own (shared, never closed) client.
  const flows = redisStorage.flows({
    connection: redisStorage.connect({ role: 'flows', connection: redis }),
  });
  return {
    redis,
    ours,
    bull,
    read: (opts) =>
      readFlow(flows, (keys) => ours.scopeFor(keys), {
        prefix,
        ...opts,
      }),
    bullRead: async (opts) => (await bull.getFlow({ prefix, ...opts })) ?? undefined,
  };
}

/** root (P) → ok1, bad-ignore, bad-fpof, pending (C2), sub (C2) → g1. */
function mixedTree(p: string, c1: string, c2: string): FlowJob {
  return {
    name: 'root',
    queueName: p,
    data: { r: 1 },
    opts: { jobId: 'root' },
    children: [
      { name: 'ok', queueName: c1, data: { n: 1 }, opts: { jobId: 'ok1' } },
      {
        name: 'bad',
        queueName: c1,
        data: { n: 2 },
        opts: { jobId: 'bad-ignore', ignoreDependencyOnFailure: true },
      },
      {
        name: 'bad',
        queueName: c1,
        data: { n: 3 },
        opts: { jobId: 'bad-fpof', failParentOnFailure: true },
      },
      { name: 'waits', queueName: c2, data: { n: 4 }, opts: { jobId: 'pending' } },
      {
        name: 'sub',
        queueName: c2,
        opts: { jobId: 'sub' },
        children: [{ name: 'ok', queueName: c1, data: { n: 5 }, opts: { jobId: 'g1' } }],
      },
    ],
  };
}

async function runChildren(queueName: string, redis: Redis, finished: number): Promise<void> {
  track(
    new Worker(
      queueName,
      async (job) => {
        if (job.name === 'bad') throw new Error(`no ${job.id}`);
        return { done: job.id };
      },
      { connection: redisOptions(), concurrency: 4 },
    ),
  );
  await waitFor(
    async () =>
      (await redis.zcard(`bull:${queueName}:completed`)) +
        (await redis.zcard(`bull:${queueName}:failed`)) >=
      finished,
  );
}

describe('readFlow equals bullmq getFlow', () => {
  it('on a flow added by OxMQ, before and after its children ran', async () => {
    const [p, c1, c2] = [uniqueQueueName('p'), uniqueQueueName('c1'), uniqueQueueName('c2')];
    const side = open();
    await side.ours.add(mixedTree(p, c1, c2));
    const opts = { id: 'root', queueName: p };

    const before = await side.read(opts);
    expect(before).toBeDefined();
    expect(shapeOf(before!)).toEqual(shapeOf((await side.bullRead(opts))!));
    expect(new Set(ids(before))).toEqual(
      new Set(['ok1', 'bad-ignore', 'bad-fpof', 'pending', 'sub']),
    );
    expect(ids(before!.children!.find((c) => c.job.id === 'sub'))).toEqual(['g1']);

    await runChildren(c1, side.redis, 4);
    const after = await side.read(opts);
    const bullAfter = await side.bullRead(opts);
    expect(shapeOf(after!)).toEqual(shapeOf(bullAfter!));
    // processed, unprocessed, failed (failParentOnFailure), ignored: bullmq's order.
    const order = ids(after);
    expect(order[0]).toBe('ok1');
    expect(new Set(order.slice(1, 3))).toEqual(new Set(['pending', 'sub']));
    expect(order.slice(3)).toEqual(['bad-fpof', 'bad-ignore']);
    const ok1 = after!.children![0]!.job;
    expect(ok1.returnvalue).toEqual({ done: 'ok1' });
    expect(ok1.parentKey).toBe(`bull:${p}:root`);
    expect(after!.children!.find((c) => c.job.id === 'bad-ignore')!.job.failedReason).toBe(
      'no bad-ignore',
    );
    expect(after!.job.deferredFailure).toBe(`child bull:${c1}:bad-fpof failed`);
  });

  it('on a flow added by bullmq, on a cluster prefix', async () => {
    const prefix = `{${uniqueQueueName('tag')}}:bull`;
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const side = open(prefix);
    const tree: BullFlowJob = {
      name: 'root',
      queueName: p,
      data: { x: [1, 2] },
      opts: { jobId: 'r' },
      children: [
        {
          name: 'mid',
          queueName: c,
          opts: { jobId: 'm', priority: 4 },
          children: [
            { name: 'leaf', queueName: p, opts: { jobId: 'l1', delay: 60_000 } },
            { name: 'leaf', queueName: c, opts: { jobId: 'l2' } },
          ],
        },
        { name: 'leaf', queueName: c, data: 'text', opts: { jobId: 'l3' } },
      ],
    };
    await side.bull.add(tree);
    const opts = { id: 'r', queueName: p };
    const ours = await side.read(opts);
    expect(shapeOf(ours!)).toEqual(shapeOf((await side.bullRead(opts))!));
    expect(levels(ours)).toBe(3);
    const mid = ours!.children!.find((n) => n.job.id === 'm')!;
    expect(mid.job.prefix).toBe(prefix);
    expect(mid.job.queueName).toBe(c);
    expect(mid.job.priority).toBe(4);
    expect(new Set(ids(mid))).toEqual(new Set(['l1', 'l2']));
    expect(mid.children!.find((n) => n.job.id === 'l1')!.job.queueName).toBe(p);
  });

  it('returns undefined for a missing root, like bullmq', async () => {
    const side = open();
    const opts = { id: 'nope', queueName: uniqueQueueName() };
    expect(await side.bullRead(opts)).toBeUndefined();
    expect(await side.read(opts)).toBeUndefined();
  });

  it('leaves out a child whose job was removed, where bullmq puts undefined', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const side = open();
    await side.ours.add({
      name: 'root',
      queueName: p,
      opts: { jobId: 'root' },
      children: [
        { name: 'gone', queueName: c, opts: { jobId: 'gone', removeOnComplete: true } },
        { name: 'bad', queueName: c, opts: { jobId: 'stays', continueParentOnFailure: true } },
      ],
    });
    await runChildren(c, side.redis, 1);
    await waitFor(async () => (await side.redis.exists(`bull:${c}:gone`)) === 0);
    expect(await side.redis.hkeys(`bull:${p}:root:processed`)).toEqual([`bull:${c}:gone`]);
    const opts = { id: 'root', queueName: p };
    const bull = await side.bullRead(opts);
    expect(ids(bull)).toEqual([null, 'stays']);
    const ours = await side.read(opts);
    expect(ids(ours)).toEqual(['stays']);
    expect(shapeOf(ours!.children![0]!)).toEqual(shapeOf(bull!.children![1]!));
  });
});

describe('readFlow bounds', () => {
  /** A chain c0 → c1 → ... → c14 over two queues. */
  function chain(qa: string, qb: string, length: number): FlowJob {
    let node: FlowJob | undefined;
    for (let i = length - 1; i >= 0; i--) {
      const next: FlowJob = { name: `n${i}`, queueName: i % 2 ? qb : qa, opts: { jobId: `c${i}` } };
      if (node) next.children = [node];
      node = next;
    }
    return node!;
  }

  it('reads depth levels (default 10) of a depth-15 chain, one pipeline per level', async () => {
    const [qa, qb] = [uniqueQueueName('a'), uniqueQueueName('b')];
    const side = open();
    await side.ours.add(chain(qa, qb, 15));
    const pipelines = vi.spyOn(side.redis, 'pipeline');
    const opts = { id: 'c0', queueName: qa };

    const byDefault = await side.read(opts);
    expect(levels(byDefault)).toBe(10);
    expect(pipelines).toHaveBeenCalledTimes(10);
    expect(shapeOf(byDefault!)).toEqual(shapeOf((await side.bullRead(opts))!));

    pipelines.mockClear();
    const all = await side.read({ ...opts, depth: 15 });
    expect(levels(all)).toBe(15);
    expect(pipelines).toHaveBeenCalledTimes(15);
    expect(shapeOf(all!)).toEqual(shapeOf((await side.bullRead({ ...opts, depth: 15 }))!));

    pipelines.mockClear();
    const deeper = await side.read({ ...opts, depth: 40 });
    expect(levels(deeper)).toBe(15);
    expect(pipelines).toHaveBeenCalledTimes(15); // stops when a level is empty

    const three = await side.read({ ...opts, depth: 3 });
    expect(levels(three)).toBe(3);
    expect(three!.children![0]!.children![0]!.children).toBeUndefined();
    const one = await side.read({ ...opts, depth: 1 });
    expect(one).toEqual({ job: expect.objectContaining({ id: 'c0' }) });
    expect(one!.children).toBeUndefined();
  });

  it('caps children across the four collections, keeping bullmq order', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const side = open();
    const children: FlowJob[] = [];
    for (let i = 0; i < 5; i++)
      children.push({ name: 'ok', queueName: c, opts: { jobId: `ok${i}` } });
    for (let i = 0; i < 5; i++)
      children.push({ name: 'later', queueName: c, opts: { jobId: `later${i}`, delay: 60_000 } });
    await side.ours.add({ name: 'root', queueName: p, opts: { jobId: 'root' }, children });
    await runChildren(c, side.redis, 5);
    const opts = { id: 'root', queueName: p, maxChildren: 7 };

    const ours = await side.read(opts);
    const bull = await side.bullRead(opts);
    // bullmq lists up to maxChildren per collection (all ten here); we stop at seven in all.
    expect(ids(bull)).toHaveLength(10);
    expect(ids(ours)).toEqual(ids(bull).slice(0, 7));
    expect(new Set(ids(ours).slice(0, 5))).toEqual(new Set(['ok0', 'ok1', 'ok2', 'ok3', 'ok4']));
    expect(
      ids(ours)
        .slice(5)
        .every((id) => id?.startsWith('later')),
    ).toBe(true);
  });

  describe('on a private Redis, counting commands', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('reads at most maxChildren of a 1,000-child parent, never a whole collection', async () => {
      const connection = { ...redisOptions(), port: server.port };
      const side = open(undefined, connection);
      const queues = [uniqueQueueName('x'), uniqueQueueName('y'), uniqueQueueName('z')];
      const children: FlowJob[] = [];
      for (let i = 0; i < 1_000; i++)
        children.push({ name: 'kid', queueName: queues[i % 3]!, opts: { jobId: `k${i}` } });
      await side.ours.add({
        name: 'root',
        queueName: queues[0]!,
        opts: { jobId: 'big' },
        children,
      });
      const opts = { id: 'big', queueName: queues[0]! };
      await side.redis.config('RESETSTAT');

      const ours = await side.read({ ...opts, depth: 2 });
      const calls = await commandCalls(side.redis);
      expect(ids(ours)).toHaveLength(20);
      expect(calls.hgetall).toBe(21); // the root and its twenty listed children
      expect(calls.sscan).toBe(1); // the last level's children are not listed
      expect(calls.hscan).toBe(2);
      expect(calls.zrange).toBe(1);
      expect(calls.smembers).toBeUndefined();

      // bullmq's single SSCAN COUNT 20 returns about twenty: ours are its first twenty.
      const bull = await side.bullRead({ ...opts, depth: 2 });
      expect(ids(bull).length).toBeGreaterThanOrEqual(20);
      expect(ids(bull).length).toBeLessThan(100);
      expect(ids(ours)).toEqual(ids(bull).slice(0, 20));

      const wide = await side.read({ ...opts, depth: 2, maxChildren: 333 });
      expect(new Set(ids(wide)).size).toBe(333);
      const all = await side.read({ ...opts, depth: 2, maxChildren: 5_000 });
      expect(new Set(ids(all)).size).toBe(1_000);
      expect(new Set(all!.children!.map((c) => c.job.queueName))).toEqual(new Set(queues));
    });
  });

  it('refuses bounds that are not positive integers', async () => {
    const side = open();
    const q = uniqueQueueName();
    for (const bad of [0, -1, 1.5, Number.NaN, '3']) {
      await expect(side.read({ id: 'x', queueName: q, depth: bad as number })).rejects.toThrow(
        ValidationError,
      );
      await expect(
        side.read({ id: 'x', queueName: q, maxChildren: bad as number }),
      ).rejects.toThrow(ValidationError);
    }
    await expect(side.read({ id: '', queueName: q })).rejects.toThrow(ValidationError);
    await expect(side.read({ id: 'x', queueName: 'a:b' })).rejects.toThrow(ValidationError);
  });
});
