/**
 * The console's flow graph (engine/admin): nodes with state, timestamps,
 * attempts, trace id and child counts, and edges, read level by level with bounds
 * (maxChildrenPerNode, depth, maxNodes), continued page by page with getFlowChildren and
 * expandFlowGraph, for flows written by OxMQ or bullmq and run by either library's workers.
 */
import {
  FlowProducer as BullFlowProducer,
  Worker as BullWorker,
  type FlowJob as BullFlowJob,
} from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FlowProducer, TraceContext, ValidationError, Worker, type FlowJob } from 'oxmq';
import {
  expandFlowGraph,
  getFlowChildren,
  getFlowGraph,
  rootOf,
  type FlowGraph,
  type FlowGraphNode,
} from 'oxmq/admin';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { useCleanup } from '../helpers/cleanup';
import { commandCalls } from '../helpers/command-stats';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function client(connection = redisOptions()): Redis {
  return track(new Redis(connection));
}

function producer(connection = redisOptions()): FlowProducer {
  return track(new FlowProducer({ connection }));
}

function byId(graph: FlowGraph | undefined): Record<string, FlowGraphNode> {
  return Object.fromEntries((graph?.nodes ?? []).map((node) => [node.id, node]));
}

/** A parent (queue p, id `root`) with `count` children k0..k(count-1) spread over `queues`. */
async function wideFlow(
  flows: FlowProducer,
  p: string,
  queues: string[],
  count: number,
  optsOf: (i: number) => FlowJob['opts'] = () => ({}),
): Promise<void> {
  const children: FlowJob[] = [];
  for (let i = 0; i < count; i++)
    children.push({
      name: 'kid',
      queueName: queues[i % queues.length]!,
      data: { i },
      opts: { jobId: `k${i}`, ...optsOf(i) },
    });
  await flows.add({ name: 'root', queueName: p, opts: { jobId: 'root' }, children });
}

/** Pages through every child of a parent; returns the pages' child ids. */
async function pageAll(redis: Redis, parentKey: string, count: number, cursor?: string) {
  const pages: string[][] = [];
  for (let guard = 0; guard < 10_000; guard++) {
    const page = await getFlowChildren(redis, { parentKey, cursor, count });
    expect(page.nodes.length).toBeLessThanOrEqual(count);
    expect(page.edges.map((e) => e.to)).toEqual(page.nodes.map((n) => n.key));
    expect(page.edges.every((e) => e.from === parentKey)).toBe(true);
    pages.push(page.nodes.map((n) => n.id));
    if (page.cursor === undefined) return pages;
    cursor = page.cursor;
  }
  throw new Error('paging did not end');
}

function expectEachOnce(pages: string[][], expected: string[]): void {
  const seen = pages.flat();
  expect(seen).toHaveLength(expected.length);
  expect(new Set(seen)).toEqual(new Set(expected));
}

/** waitFor for a value: resolves with the first one check() returns. */
async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  const value = await waitFor(check);
  if (value === undefined) throw new Error('waitFor resolved without a value');
  return value;
}

const kids = (count: number) => Array.from({ length: count }, (_, i) => `k${i}`);

describe('getFlowGraph', () => {
  it('shows each node state, timestamps, attempts and counts as workers run the flow', async () => {
    const [p, p2, c] = [uniqueQueueName('p'), uniqueQueueName('p2'), uniqueQueueName('c')];
    const redis = client();
    const t0 = Date.now();
    await producer().add({
      name: 'root',
      queueName: p,
      opts: { jobId: 'root' },
      children: [
        { name: 'quick', queueName: c, opts: { jobId: 'a' } },
        { name: 'later', queueName: c, opts: { jobId: 'b', delay: 600_000 } },
        { name: 'held', queueName: c, opts: { jobId: 'c', priority: 3 } },
        { name: 'broken', queueName: c, opts: { jobId: 'd', attempts: 2 } },
        {
          name: 'sub',
          queueName: p2,
          opts: { jobId: 'sub' },
          children: [{ name: 'quick', queueName: c, opts: { jobId: 's1' } }],
        },
      ],
    });
    const read = () => getFlowGraph(redis, { queueName: p, jobId: 'root' });

    const start = await read();
    expect(start).toBeDefined();
    expect(start!.rootKey).toBe(`bull:${p}:root`);
    expect(start!.truncated).toBe(false);
    expect(start!.nodes.map((n) => n.level)).toEqual([0, 1, 1, 1, 1, 1, 2]);
    const states = (graph: FlowGraph | undefined) =>
      Object.fromEntries((graph?.nodes ?? []).map((n) => [n.id, n.state]));
    expect(states(start)).toEqual({
      root: 'waiting-children',
      a: 'waiting',
      b: 'delayed',
      c: 'prioritized',
      d: 'waiting',
      sub: 'waiting-children',
      s1: 'waiting',
    });
    const root = start!.nodes[0]!;
    expect(root).toMatchObject({
      key: `bull:${p}:root`,
      id: 'root',
      queueName: p,
      prefix: 'bull',
      name: 'root',
      attemptsMade: 0,
      attemptsStarted: 0,
      childCount: { processed: 0, unprocessed: 5, failed: 0, ignored: 0 },
    });
    expect(root.timestamp).toBeGreaterThanOrEqual(t0);
    expect(root.processedOn).toBeUndefined();
    expect(root.parentKey).toBeUndefined();
    expect(byId(start).s1!.parentKey).toBe(`bull:${p2}:sub`);
    expect(start!.edges).toHaveLength(6);
    expect(start!.edges).toContainEqual({
      from: `bull:${p2}:sub`,
      to: `bull:${c}:s1`,
      status: 'unprocessed',
    });

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    track(
      new Worker(
        c,
        async (job) => {
          if (job.id === 'c') await held;
          if (job.name === 'broken') throw new Error(`broken attempt ${job.attemptsMade + 1}`);
          return job.id;
        },
        { connection: redisOptions(), concurrency: 4 },
      ),
    );
    const running = await until(async () => {
      const graph = await read();
      const nodes = byId(graph);
      // The graph is read level by level, not as one snapshot: wait for a read in which the
      // root's counts have caught up with its children's states too.
      return nodes.c?.state === 'active' &&
        nodes.a?.state === 'completed' &&
        nodes.d?.state === 'failed' &&
        nodes.sub?.state === 'waiting' &&
        nodes.root?.childCount?.processed === 1
        ? nodes
        : undefined;
    });
    expect(running.c!.processedOn).toBeGreaterThanOrEqual(t0);
    expect(running.c!.finishedOn).toBeUndefined();
    expect(running.c!.attemptsStarted).toBe(1);
    expect(running.a!.finishedOn).toBeGreaterThanOrEqual(running.a!.processedOn!);
    expect(running.a).toMatchObject({ attemptsMade: 1, attemptsStarted: 1 });
    expect(running.d).toMatchObject({
      attemptsMade: 2,
      attemptsStarted: 2,
      failedReason: 'broken attempt 2',
    });
    expect(running.sub!.childCount).toEqual({
      processed: 1,
      unprocessed: 0,
      failed: 0,
      ignored: 0,
    });
    expect(running.b!.state).toBe('delayed');
    // A child failing without a failure policy stays among its parent's pending children.
    expect(running.root!.childCount).toEqual({
      processed: 1,
      unprocessed: 4,
      failed: 0,
      ignored: 0,
    });

    release();
    await waitFor(async () => byId(await read()).c?.state === 'completed');
    track(new Worker(p2, async () => 'sub done', { connection: redisOptions() }));
    // A graph is read node by node, so one read may see sub completed but the root's count
    // from a moment before: wait for a read in which both have caught up.
    const done = await until(async () => {
      const graph = await read();
      const nodes = byId(graph);
      return nodes.sub?.state === 'completed' && nodes.root?.childCount.processed === 3
        ? graph
        : undefined;
    });
    expect(byId(done).root!.childCount).toEqual({
      processed: 3,
      unprocessed: 2,
      failed: 0,
      ignored: 0,
    });
    const statusOf = (id: string) => done.edges.find((e) => e.to.endsWith(`:${id}`))?.status;
    expect([statusOf('a'), statusOf('c'), statusOf('sub'), statusOf('s1')]).toEqual([
      'processed',
      'processed',
      'processed',
      'processed',
    ]);
    expect([statusOf('b'), statusOf('d')]).toEqual(['unprocessed', 'unprocessed']);
    // bullmq's order: processed children first.
    expect(
      done.nodes
        .slice(1, 4)
        .map((n) => n.id)
        .sort(),
    ).toEqual(['a', 'c', 'sub']);
  });

  it('reads a bullmq flow run by bullmq workers, with a failParentOnFailure child', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const redis = client();
    const bull = track(new BullFlowProducer({ connection: redisOptions() }));
    const tree: BullFlowJob = {
      name: 'root',
      queueName: p,
      opts: { jobId: 'root' },
      children: [
        { name: 'ok', queueName: c, opts: { jobId: 'ok' } },
        { name: 'bad', queueName: c, opts: { jobId: 'ign', ignoreDependencyOnFailure: true } },
        { name: 'bad', queueName: c, opts: { jobId: 'fatal', failParentOnFailure: true } },
      ],
    };
    await bull.add(tree);
    track(
      new BullWorker(
        c,
        async (job) => {
          if (job.name === 'bad') throw new Error(`failed ${job.id} ${'x'.repeat(500)}`);
          return 7;
        },
        { connection: redisOptions() },
      ),
    );
    track(new BullWorker(p, async () => 'never', { connection: redisOptions() }));
    const graph = await until(async () => {
      const g = await getFlowGraph(redis, { queueName: p, jobId: 'root' });
      return byId(g).root?.state === 'failed' && byId(g).ign?.state === 'failed' ? g : undefined;
    });
    const nodes = byId(graph);
    expect(nodes.root!.failedReason).toBe(`child bull:${c}:fatal failed`);
    expect(nodes.root!.childCount).toEqual({ processed: 1, unprocessed: 0, failed: 1, ignored: 1 });
    expect(nodes.ok!.state).toBe('completed');
    expect(nodes.fatal!.failedReason).toHaveLength(201); // shortened: 200 characters and "…"
    expect(nodes.fatal!.failedReason!.endsWith('…')).toBe(true);
    expect(graph.edges.map((e) => [e.to.split(':').at(-1), e.status])).toEqual([
      ['ok', 'processed'],
      ['fatal', 'failed'],
      ['ign', 'ignored'],
    ]);
  });

  it('carries the trace id of a job with a traceparent', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const redis = client();
    const trace = TraceContext.create();
    const childTrace = trace.createChildSpan();
    await producer().add({
      name: 'root',
      queueName: p,
      opts: { jobId: 'root', traceparent: trace.traceparent },
      children: [
        { name: 'traced', queueName: c, opts: { jobId: 't', traceparent: childTrace.traceparent } },
        { name: 'plain', queueName: c, opts: { jobId: 'u' } },
        { name: 'odd', queueName: c, opts: { jobId: 'v' } },
      ],
    });
    await redis.hset(`bull:${c}:v`, 'traceparent', 'not-a-traceparent');
    const nodes = byId(await getFlowGraph(redis, { queueName: p, jobId: 'root' }));
    expect(nodes.root!.traceId).toBe(trace.traceId);
    expect(nodes.t!.traceId).toBe(trace.traceId);
    // A child without a context of its own carries its parent's (the flow stays one trace).
    expect(nodes.u!.traceId).toBe(trace.traceId);
    expect(nodes.v!.traceId).toBeUndefined();
  });

  it('shows a delayed child of a tenant group as delayed, and one waiting in its group as waiting', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const redis = client();
    await producer().add({
      name: 'root',
      queueName: p,
      opts: { jobId: 'root' },
      children: [
        { name: 'later', queueName: c, opts: { jobId: 'd', delay: 60_000, group: { id: 'acme' } } },
        { name: 'now', queueName: c, opts: { jobId: 'w', group: { id: 'acme' } } },
      ],
    });
    // The grouped delayed job sits in OxMQ's group-delayed set, not in the queue's delayed set.
    expect(await redis.zscore(`bull:${c}:delayed`, 'd')).toBeNull();
    expect(await redis.zscore(`bull:${c}:group-delayed`, 'd')).not.toBeNull();
    const nodes = byId(await getFlowGraph(redis, { queueName: p, jobId: 'root' }));
    expect(nodes.d!.state).toBe('delayed');
    expect(nodes.w!.state).toBe('waiting');
    expect(nodes.root!.state).toBe('waiting-children');
  });

  it('returns undefined for a missing root and marks a removed child as missing', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const redis = client();
    expect(await getFlowGraph(redis, { queueName: p, jobId: 'root' })).toBeUndefined();
    await producer().add({
      name: 'root',
      queueName: p,
      opts: { jobId: 'root' },
      children: [{ name: 'gone', queueName: c, opts: { jobId: 'gone', removeOnComplete: true } }],
    });
    track(new Worker(c, async () => 1, { connection: redisOptions() }));
    const graph = await until(async () => {
      const g = await getFlowGraph(redis, { queueName: p, jobId: 'root' });
      // The parent moves on when its last child completes; wait for both to be seen.
      return byId(g).gone?.missing && byId(g).root?.state === 'waiting' ? g : undefined;
    });
    expect(byId(graph).gone).toMatchObject({ state: 'unknown', name: '', missing: true });
    expect(byId(graph).root!.state).toBe('waiting');
    expect(graph.edges).toEqual([
      { from: `bull:${p}:root`, to: `bull:${c}:gone`, status: 'processed' },
    ]);
  });
});

describe('bounds and paging', () => {
  it('stops at maxNodes with truncated set, and the cursor continues from there', async () => {
    const [p, c1, c2] = [uniqueQueueName('p'), uniqueQueueName('c1'), uniqueQueueName('c2')];
    const redis = client();
    await wideFlow(producer(), p, [c1, c2], 1_000);
    const rootKey = `bull:${p}:root`;

    const small = await getFlowGraph(redis, {
      queueName: p,
      jobId: 'root',
      maxChildrenPerNode: 1_000,
      maxNodes: 100,
    });
    expect(small!.nodes).toHaveLength(100);
    expect(small!.edges).toHaveLength(99);
    expect(small!.truncated).toBe(true);
    const cursor = small!.nodes[0]!.childrenCursor;
    expect(cursor).toBeDefined();
    expect(small!.nodes.slice(1).every((n) => n.childrenCursor === undefined)).toBe(true);
    const rest = await pageAll(redis, rootKey, 250, cursor);
    expectEachOnce([small!.nodes.slice(1).map((n) => n.id), ...rest], kids(1_000));

    const byDefault = await getFlowGraph(redis, { queueName: p, jobId: 'root' });
    expect(byDefault!.nodes).toHaveLength(21); // maxChildrenPerNode defaults to 20
    expect(byDefault!.truncated).toBe(true);

    const everything = await getFlowGraph(redis, {
      queueName: p,
      jobId: 'root',
      maxChildrenPerNode: 1_000,
      maxNodes: 1_001,
    });
    expect(everything!.nodes).toHaveLength(1_001);
    expect(everything!.truncated).toBe(false);
    expect(everything!.nodes[0]!.childrenCursor).toBeUndefined();
  });

  it('pages through 1,000 children in three collections, each exactly once', async () => {
    const [p, ok, bad, idle] = ['p', 'ok', 'bad', 'idle'].map((l) => uniqueQueueName(l)) as [
      string,
      string,
      string,
      string,
    ];
    const redis = client();
    await wideFlow(producer(), p, [ok, bad, idle], 1_000, (i) =>
      i % 3 === 1 ? { ignoreDependencyOnFailure: true } : {},
    );
    track(new Worker(ok, async (job) => job.data, { connection: redisOptions(), concurrency: 50 }));
    track(
      new Worker(
        bad,
        async () => {
          throw new Error('nope');
        },
        { connection: redisOptions(), concurrency: 50 },
      ),
    );
    const rootKey = `bull:${p}:root`;
    await waitFor(
      async () =>
        (await redis.hlen(`${rootKey}:processed`)) === 334 &&
        (await redis.hlen(`${rootKey}:failed`)) === 333,
      30_000,
    );
    expect(await redis.scard(`${rootKey}:dependencies`)).toBe(333);

    const pages = await pageAll(redis, rootKey, 37);
    expectEachOnce(pages, kids(1_000));
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(1_000 / 37));

    // Statuses follow the collections, processed first, then unprocessed, then ignored.
    const statuses: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await getFlowChildren(redis, {
        parentKey: rootKey,
        cursor,
        count: 100,
        level: 4,
      });
      expect(page.nodes.every((n) => n.level === 5)).toBe(true);
      for (const edge of page.edges) {
        const node = page.nodes.find((n) => n.key === edge.to)!;
        const expected =
          node.queueName === ok ? 'processed' : node.queueName === bad ? 'ignored' : 'unprocessed';
        expect(edge.status).toBe(expected);
        if (statuses.at(-1) !== edge.status) statuses.push(edge.status);
      }
      cursor = page.cursor;
    } while (cursor);
    expect(statuses).toEqual(['processed', 'unprocessed', 'ignored']);
  }, 60_000);

  it('pages small collections (returned whole by one scan) exactly once too', async () => {
    const [p, ok, idle] = [uniqueQueueName('p'), uniqueQueueName('ok'), uniqueQueueName('idle')];
    const redis = client();
    await wideFlow(producer(), p, [ok, idle], 100);
    track(new Worker(ok, async () => 1, { connection: redisOptions(), concurrency: 10 }));
    const rootKey = `bull:${p}:root`;
    await waitFor(async () => (await redis.hlen(`${rootKey}:processed`)) === 50);
    expect(await redis.object('ENCODING', `${rootKey}:processed`)).toBe('listpack');
    for (const count of [1, 7, 50, 64])
      expectEachOnce(await pageAll(redis, rootKey, count), kids(100));
  });

  it('reads depth levels of a depth-15 chain, one pipeline per level, and expands below', async () => {
    const [qa, qb] = [uniqueQueueName('a'), uniqueQueueName('b')];
    const redis = client();
    let node: FlowJob | undefined;
    for (let i = 14; i >= 0; i--) {
      const next: FlowJob = { name: `n${i}`, queueName: i % 2 ? qb : qa, opts: { jobId: `c${i}` } };
      if (node) next.children = [node];
      node = next;
    }
    await producer().add(node!);
    const pipelines = vi.spyOn(redis, 'pipeline');

    const top = await getFlowGraph(redis, { queueName: qa, jobId: 'c0' });
    expect(pipelines).toHaveBeenCalledTimes(10);
    expect(top!.nodes.map((n) => n.id)).toEqual(kids(10).map((id) => id.replace('k', 'c')));
    expect(top!.truncated).toBe(true);
    const last = top!.nodes.at(-1)!;
    expect(last.level).toBe(9);
    expect(last.childrenCursor).toBeDefined();
    expect(top!.nodes.slice(0, -1).every((n) => n.childrenCursor === undefined)).toBe(true);

    pipelines.mockClear();
    const below = await expandFlowGraph(redis, {
      parents: [{ key: last.key, cursor: last.childrenCursor, level: last.level }],
      depth: 10,
    });
    expect(pipelines).toHaveBeenCalledTimes(6); // five levels, and one that finds no children
    expect(below.nodes.map((n) => [n.id, n.level])).toEqual(
      [10, 11, 12, 13, 14].map((i) => [`c${i}`, i]),
    );
    expect(below.parents).toEqual([{ key: last.key }]);
    expect(below.truncated).toBe(false);

    const shallow = await getFlowGraph(redis, { queueName: qa, jobId: 'c0', depth: 1 });
    expect(shallow!.nodes).toHaveLength(1);
    expect(shallow!.edges).toEqual([]);
    expect(shallow!.nodes[0]!.childrenCursor).toBeDefined();

    const leafKey = `bull:${qa}:c14`;
    expect(await rootOf(redis, leafKey)).toEqual({
      rootKey: `bull:${qa}:c0`,
      hops: 14,
      reachedTop: true,
    });
    expect(await rootOf(redis, leafKey, { maxHops: 3 })).toEqual({
      rootKey: `bull:${qb}:c11`,
      hops: 3,
      reachedTop: false,
    });
    expect(await rootOf(redis, `bull:${qa}:c0`)).toEqual({
      rootKey: `bull:${qa}:c0`,
      hops: 0,
      reachedTop: true,
    });
    expect(await rootOf(redis, `bull:${qa}:missing`)).toBeUndefined();
    await redis.del(`bull:${qa}:c0`);
    expect(await rootOf(redis, leafKey)).toEqual({
      rootKey: `bull:${qb}:c1`,
      hops: 13,
      reachedTop: false,
    });
  });

  it('expands a whole level of parents in one call, within maxNodes', async () => {
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    const redis = client();
    const subs: FlowJob[] = [];
    for (let s = 0; s < 5; s++) {
      const leaves: FlowJob[] = [];
      for (let i = 0; i < 30; i++)
        leaves.push({ name: 'leaf', queueName: c, opts: { jobId: `s${s}-${i}` } });
      subs.push({ name: 'sub', queueName: p, opts: { jobId: `s${s}` }, children: leaves });
    }
    await producer().add({ name: 'root', queueName: p, opts: { jobId: 'root' }, children: subs });
    const top = await getFlowGraph(redis, { queueName: p, jobId: 'root', depth: 2 });
    const level1 = top!.nodes.filter((n) => n.level === 1);
    expect(level1).toHaveLength(5);
    expect(level1.every((n) => n.childCount.unprocessed === 30 && n.childrenCursor)).toBe(true);

    const expanded = await expandFlowGraph(redis, {
      parents: level1.map((n) => ({ key: n.key, cursor: n.childrenCursor, level: 1 })),
      maxChildrenPerNode: 30,
      maxNodes: 100,
    });
    expect(expanded.nodes).toHaveLength(100);
    expect(expanded.truncated).toBe(true);
    expect(expanded.nodes.every((n) => n.level === 2)).toBe(true);
    // The first three parents were read whole; the fourth got ten, the fifth none.
    const left = expanded.parents.map((parent) => parent.childrenCursor !== undefined);
    expect(left).toEqual([false, false, false, true, true]);
    const fourth = expanded.parents[3]!;
    const fourthPages = await pageAll(redis, fourth.key, 30, fourth.childrenCursor);
    const fourthFirst = expanded.nodes.filter((n) => n.parentKey === fourth.key).map((n) => n.id);
    expect(fourthFirst).toHaveLength(10);
    const fourthId = fourth.key.split(':').at(-1);
    const all30 = Array.from({ length: 30 }, (_, i) => `${fourthId}-${i}`);
    expectEachOnce([fourthFirst, ...fourthPages], all30);
  });

  it('refuses bad input with a ValidationError', async () => {
    const redis = client();
    const q = uniqueQueueName();
    await expect(
      getFlowGraph(redis, { queueName: q, jobId: 'x', maxNodes: 10_001 }),
    ).rejects.toThrow(ValidationError);
    await expect(getFlowGraph(redis, { queueName: q, jobId: 'x', depth: 0 })).rejects.toThrow(
      ValidationError,
    );
    await expect(
      getFlowChildren(redis, { parentKey: `bull:${q}:x`, cursor: 'garbage' }),
    ).rejects.toThrow(ValidationError);
    await expect(getFlowChildren(redis, { parentKey: 'nokey' })).rejects.toThrow(ValidationError);
    await expect(
      getFlowChildren(redis, { parentKey: `bull:${q}:x`, count: 1_001 }),
    ).rejects.toThrow(ValidationError);
    await expect(rootOf(redis, 'x')).rejects.toThrow(ValidationError);
    const none = await getFlowChildren(redis, { parentKey: `bull:${q}:x` });
    expect(none).toEqual({ parentKey: `bull:${q}:x`, nodes: [], edges: [] });
  });
});

describe('on a private Redis, counting commands', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('reads only chosen hash fields and bounded scans, never a whole collection', async () => {
    const connection = { ...redisOptions(), port: server.port };
    const redis = client(connection);
    const [p, c] = [uniqueQueueName('p'), uniqueQueueName('c')];
    await wideFlow(producer(connection), p, [c], 1_000);
    await redis.config('RESETSTAT');

    const graph = await getFlowGraph(redis, {
      queueName: p,
      jobId: 'root',
      maxChildrenPerNode: 50,
    });
    expect(graph!.nodes).toHaveLength(51);
    const calls = await commandCalls(redis);
    expect(calls.hmget).toBe(51);
    expect(calls.sscan).toBe(51); // the root's and, finding none, each child's
    // Only the active list is searched: a job found in no other state is waiting.
    expect(calls.lpos).toBe(51);
    for (const whole of ['hgetall', 'smembers', 'hkeys', 'hvals', 'lrange', 'keys', 'scan'])
      expect(calls[whole], whole).toBeUndefined();
    const reads = ['hlen', 'hmget', 'hscan', 'lpos', 'scard', 'sscan', 'zcard', 'zrange', 'zscore'];
    const others = Object.keys(calls).filter(
      (name) => name !== 'info' && !name.startsWith('config'),
    );
    expect(others.sort()).toEqual(reads);
  });
});
