/**
 * Bad flows are refused with a typed error and NOTHING is written (docs/redis-keys.md,
 * flows). Every case snapshots every key under the prefixes involved (hashes, sets, zsets with
 * scores, lists, the `id` counters, streams with their entry ids) before and after the refused
 * add, and the two must be equal. A valid flow is added first, so the queues, their counters and
 * streams exist and a stray write would show. Each refusal has a passing twin nearby, so the
 * refusals are not the producer failing at everything.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  ClosedError,
  FlowProducer,
  OxmqError,
  ParentJobCannotBeReplacedError,
  ParentJobNotFoundError,
  ValidationError,
  type FlowChildJob,
  type FlowJob,
  type JobsOptions,
} from 'oxmq';
import { FLOW_LIMITS } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { snapshot } from '../helpers/flow-state';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });
type ErrorClass = new (...args: never[]) => OxmqError;

interface Setup {
  redis: Redis;
  prefix: string;
  producer: FlowProducer;
  /** Asserts that `attempt` rejects with `error` and leaves the prefixes exactly as they were. */
  refused(
    attempt: () => Promise<unknown>,
    error: ErrorClass,
    prefixes?: string[],
    message?: RegExp,
  ): Promise<void>;
  /** The `id` counters of the fixture's queues. */
  counters(): Promise<(string | null)[]>;
}

/** A producer on a fresh prefix, with a valid flow already in queues `P` and `C`. */
async function setup(producer?: FlowProducer): Promise<Setup> {
  const redis = track(rawClient());
  const prefix = producer?.prefix ?? uniqueQueueName('fv');
  const fp = producer ?? track(new FlowProducer({ ...conn(), prefix }));
  await fp.add({
    name: 'owner',
    queueName: 'P',
    opts: { jobId: 'owner' },
    children: [
      { name: 'shared', queueName: 'C', opts: { jobId: 'shared' } },
      { name: 'other', queueName: 'C' },
    ],
  });
  const counters = () => Promise.all(['P', 'C'].map((q) => redis.get(`${prefix}:${q}:id`)));
  return {
    redis,
    prefix,
    producer: fp,
    counters,
    async refused(attempt, error, prefixes = [prefix], message) {
      const before = await snapshot(redis, prefixes);
      const idsBefore = await counters();
      expect(Object.keys(before).length).toBeGreaterThan(0);
      const outcome = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(outcome).toBeInstanceOf(error);
      if (message) expect((outcome as Error).message).toMatch(message);
      expect(await counters()).toEqual(idsBefore);
      expect(await snapshot(redis, prefixes)).toEqual(before);
    },
  };
}

const leaf = (name: string, queueName = 'C', opts: JobsOptions = {}): FlowChildJob => ({
  name,
  queueName,
  opts,
});

/** A flow 3 levels deep whose deepest node carries `opts` (or is replaced by `deepest`). */
function deepFlow(deepest: FlowChildJob): FlowJob {
  return {
    name: 'top',
    queueName: 'P',
    children: [
      leaf('fine-1'),
      {
        name: 'level-1',
        queueName: 'P',
        children: [
          leaf('fine-2'),
          { name: 'level-2', queueName: 'C', children: [leaf('fine-3'), deepest] },
        ],
      },
    ],
  };
}

describe('a root attached under a missing parent', () => {
  it('throws ParentJobNotFoundError and writes nothing (root with children, and a leaf root)', async () => {
    const s = await setup();
    const missing = { id: 'no-such-job', queue: `${s.prefix}:P` };
    await s.refused(
      () =>
        s.producer.add({
          name: 'sub',
          queueName: 'P',
          opts: { parent: missing },
          children: [leaf('a'), leaf('b', 'P')],
        }),
      ParentJobNotFoundError,
    );
    await s.refused(
      () => s.producer.add({ name: 'sub', queueName: 'C', opts: { parent: missing } }),
      ParentJobNotFoundError,
    );
    // A parent in a queue that does not exist at all.
    await s.refused(
      () =>
        s.producer.add({
          name: 'sub',
          queueName: 'C',
          opts: { parent: { id: 'x', queue: `${s.prefix}:nowhere` } },
          children: [leaf('a')],
        }),
      ParentJobNotFoundError,
    );
  });

  it('the passing twin: an existing parent gets the root as a dependency', async () => {
    const s = await setup();
    const node = await s.producer.add({
      name: 'sub',
      queueName: 'C',
      opts: { parent: { id: 'owner', queue: `${s.prefix}:P` } },
      children: [leaf('a')],
    });
    expect(
      await s.redis.sismember(`${s.prefix}:P:owner:dependencies`, `${s.prefix}:C:${node.job.id}`),
    ).toBe(1);
  });
});

describe('tree shape', () => {
  it('a node that is its own descendant is a cycle: ValidationError, nothing written', async () => {
    const s = await setup();
    const self: FlowJob = { name: 'self', queueName: 'P', children: [] };
    self.children!.push(self);
    // Named as a cycle, not merely caught by the depth limit it would otherwise run into.
    await s.refused(() => s.producer.add(self), ValidationError, undefined, /cycle/);

    const a: FlowJob = { name: 'a', queueName: 'P', children: [] };
    const b: FlowJob = { name: 'b', queueName: 'C', children: [leaf('fine'), a] };
    a.children!.push(leaf('ok'), b);
    await s.refused(
      () => s.producer.add({ name: 'top', queueName: 'P', children: [a] }),
      ValidationError,
      undefined,
      /cycle/,
    );
  });

  it('the same node object twice as siblings is not a cycle: two jobs', async () => {
    const s = await setup();
    const twice = leaf('twice');
    const node = await s.producer.add({ name: 'top', queueName: 'P', children: [twice, twice] });
    const [x, y] = node.children!.map((c) => c.job.id);
    expect(x).not.toBe(y);
    expect(await s.redis.scard(`${s.prefix}:P:${node.job.id}:dependencies`)).toBe(2);
  });

  it(`more than FLOW_LIMITS.maxNodes (${FLOW_LIMITS.maxNodes}) nodes: ValidationError, nothing written`, async () => {
    const s = await setup();
    const wide = (children: number): FlowJob => ({
      name: 'wide',
      queueName: 'P',
      children: Array.from({ length: children }, (_, i) => leaf(`c${i}`)),
    });
    await s.refused(() => s.producer.add(wide(FLOW_LIMITS.maxNodes)), ValidationError);
    // The limit is on one call: addBulk counts every flow's nodes together.
    const half = Math.ceil(FLOW_LIMITS.maxNodes / 2);
    await s.refused(() => s.producer.addBulk([wide(half), wide(half)]), ValidationError);
    // Exactly maxNodes nodes are accepted.
    const node = await s.producer.add(wide(FLOW_LIMITS.maxNodes - 1));
    expect(await s.redis.scard(`${s.prefix}:P:${node.job.id}:dependencies`)).toBe(
      FLOW_LIMITS.maxNodes - 1,
    );
  }, 60_000);

  it(`deeper than FLOW_LIMITS.maxDepth (${FLOW_LIMITS.maxDepth}) levels: ValidationError, nothing written`, async () => {
    const s = await setup();
    const chain = (levels: number): FlowJob => {
      let node: FlowJob = { name: `n${levels}`, queueName: 'C' };
      for (let level = levels - 1; level >= 0; level--) {
        node = { name: `n${level}`, queueName: level % 2 ? 'C' : 'P', children: [node] };
      }
      return node;
    };
    await s.refused(() => s.producer.add(chain(FLOW_LIMITS.maxDepth + 1)), ValidationError);
    const node = await s.producer.add(chain(FLOW_LIMITS.maxDepth));
    let depth = 0;
    for (let n = node; n.children; n = n.children[0]!) depth++;
    expect(depth).toBe(FLOW_LIMITS.maxDepth);
  });

  it('a node that is not an object, or children that are not an array: ValidationError', async () => {
    const s = await setup();
    await s.refused(
      () => s.producer.add(deepFlow(null as unknown as FlowChildJob)),
      ValidationError,
    );
    await s.refused(
      () =>
        s.producer.add(
          deepFlow({ name: 'x', queueName: 'C', children: {} as unknown as FlowChildJob[] }),
        ),
      ValidationError,
    );
    await s.refused(
      () => s.producer.add(deepFlow({ name: 7 as unknown as string, queueName: 'C' })),
      ValidationError,
    );
  });
});

describe('queues and prefixes', () => {
  it('a bad queue name deep in the tree: ValidationError, nothing written', async () => {
    const s = await setup();
    for (const queueName of [
      '',
      'has:colon',
      undefined as unknown as string,
      5 as unknown as string,
    ]) {
      await s.refused(() => s.producer.add(deepFlow({ name: 'bad', queueName })), ValidationError);
    }
  });

  it('a forCluster producer refuses a node with another prefix, and writes nothing under either', async () => {
    const tag = uniqueQueueName('tag');
    const s = await setup(track(FlowProducer.forCluster(tag, conn())));
    expect(s.prefix).toBe(`{${tag}}:bull`);
    const foreign = uniqueQueueName('foreign');
    await s.refused(
      () => s.producer.add(deepFlow({ name: 'elsewhere', queueName: 'C', prefix: foreign })),
      ValidationError,
      [s.prefix, foreign],
    );
    await s.refused(
      () => s.producer.add({ name: 'root', queueName: 'P', prefix: 'bull' }),
      ValidationError,
      [s.prefix, 'bull:P'],
    );
    // The passing twin: the producer's own prefix, spelled out, is fine.
    const node = await s.producer.add(deepFlow({ name: 'here', queueName: 'C', prefix: s.prefix }));
    expect(node.job.prefix).toBe(s.prefix);
  });

  it('a forCluster producer refuses to attach a root under a parent outside its prefix', async () => {
    // The parent's keys would live in another hash slot: CROSSSLOT on a cluster.
    const outside = uniqueQueueName('outside');
    const host = track(new FlowProducer({ ...conn(), prefix: outside }));
    await host.add({
      name: 'host',
      queueName: 'H',
      opts: { jobId: 'host' },
      children: [leaf('h1')],
    });
    const tag = uniqueQueueName('tag');
    const s = await setup(track(FlowProducer.forCluster(tag, conn())));
    await s.refused(
      () =>
        s.producer.add({
          name: 'sub',
          queueName: 'P',
          opts: { parent: { id: 'host', queue: `${outside}:H` } },
          children: [leaf('a')],
        }),
      ValidationError,
      [s.prefix, outside],
    );
    // The passing twin: a parent under the producer's own tagged prefix.
    const inside = await s.producer.add({
      name: 'sub',
      queueName: 'P',
      opts: { parent: { id: 'owner', queue: `${s.prefix}:P` } },
      children: [leaf('a')],
    });
    expect(
      await s.redis.sismember(`${s.prefix}:P:owner:dependencies`, `${s.prefix}:P:${inside.job.id}`),
    ).toBe(1);
  });
});

describe('job ids', () => {
  it('the same jobId twice in one queue of a flow: ValidationError, nothing written', async () => {
    const s = await setup();
    const clash: FlowJob = {
      name: 'top',
      queueName: 'P',
      children: [
        leaf('one', 'C', { jobId: 'dup' }),
        { name: 'mid', queueName: 'P', children: [leaf('two', 'C', { jobId: 'dup' })] },
      ],
    };
    await s.refused(() => s.producer.add(clash), ValidationError);
    // A parent and a descendant sharing an id in the same queue.
    await s.refused(
      () =>
        s.producer.add({
          name: 'top',
          queueName: 'P',
          opts: { jobId: 'same' },
          children: [
            { name: 'mid', queueName: 'C', children: [leaf('deep', 'P', { jobId: 'same' })] },
          ],
        }),
      ValidationError,
    );
    // Across the flows of one addBulk.
    await s.refused(
      () =>
        s.producer.addBulk([
          { name: 'f1', queueName: 'P', children: [leaf('x', 'C', { jobId: 'bulk-dup' })] },
          { name: 'f2', queueName: 'C', opts: { jobId: 'bulk-dup' } },
        ]),
      ValidationError,
    );
  });

  it('the passing twin: one id in two different queues of a flow', async () => {
    const s = await setup();
    const node = await s.producer.add({
      name: 'top',
      queueName: 'P',
      children: [leaf('in-c', 'C', { jobId: 'twin' }), leaf('in-p', 'P', { jobId: 'twin' })],
    });
    expect(node.children!.map((c) => c.job.id)).toEqual(['twin', 'twin']);
    expect(await s.redis.exists(`${s.prefix}:C:twin`, `${s.prefix}:P:twin`)).toBe(2);
  });
});

describe('invalid options deep in the tree', () => {
  const cases: [string, FlowChildJob][] = [
    ['priority above 2,097,151', leaf('p', 'C', { priority: 2_097_152 })],
    ['negative priority', leaf('p', 'C', { priority: -1 })],
    ['a malformed traceparent', leaf('t', 'C', { traceparent: '00-not-a-trace-01' })],
    ['tracestate without traceparent', leaf('t', 'C', { tracestate: 'k=v' })],
    ['a negative delay', leaf('d', 'C', { delay: -5 })],
    ['fractional attempts', leaf('a', 'C', { attempts: 1.5 })],
    [
      'two failure policies on one child',
      leaf('f', 'C', { failParentOnFailure: true, ignoreDependencyOnFailure: true }),
    ],
    [
      'a child with its own opts.parent',
      leaf('o', 'C', { parent: { id: 'owner', queue: 'x:P' } } as JobsOptions),
    ],
    ['an integer custom id', leaf('i', 'C', { jobId: '42' })],
    [
      'deduplication on a node with children',
      {
        name: 'dd',
        queueName: 'C',
        opts: { deduplication: { id: 'd' } } as JobsOptions,
        children: [leaf('x')],
      },
    ],
    ['data that is not JSON', { name: 'fn', queueName: 'C', data: { f: () => 1 } }],
  ];
  for (const [what, node] of cases) {
    it(`${what}: ValidationError, nothing written`, async () => {
      const s = await setup();
      await s.refused(() => s.producer.add(deepFlow(node)), ValidationError);
    });
  }

  it('a bad queuesOptions default is refused like a bad node option', async () => {
    const s = await setup();
    await s.refused(
      () =>
        s.producer.add(deepFlow(leaf('fine-4')), {
          queuesOptions: { C: { defaultJobOptions: { priority: 1e9 } } },
        }),
      ValidationError,
    );
  });
});

describe('atomicity: a node the script refuses leaves no partial flow', () => {
  it('a custom id already owned by another live parent: ParentJobCannotBeReplacedError, no node written', async () => {
    const s = await setup();
    // Late in the tree, after nodes in both queues that would otherwise have been written.
    await s.refused(
      () => s.producer.add(deepFlow(leaf('shared', 'C', { jobId: 'shared' }))),
      ParentJobCannotBeReplacedError,
    );
    // Under a new parent with a custom id, as the last of several flows of one addBulk: that
    // flow is skipped whole, the others are written (bullmq's addBulk adds the valid flows).
    const refusals: Error[] = [];
    s.producer.on('error', (error) => refusals.push(error));
    const trees = await s.producer.addBulk([
      { name: 'f1', queueName: 'P', opts: { jobId: 'f1' }, children: [leaf('f1-c')] },
      { name: 'f2', queueName: 'C', opts: { jobId: 'f2' } },
      {
        name: 'f3',
        queueName: 'P',
        opts: { jobId: 'f3' },
        children: [leaf('x'), leaf('shared', 'C', { jobId: 'shared' })],
      },
    ]);
    expect(trees.map((tree) => tree.job.id)).toEqual(['f1', 'f2', 'f3']);
    expect(await s.redis.exists(`${s.prefix}:P:f1`, `${s.prefix}:C:f2`)).toBe(2);
    expect(await s.redis.exists(`${s.prefix}:P:f3`)).toBe(0);
    expect(await s.redis.exists(`${s.prefix}:C:${trees[2]!.children![0]!.job.id}`)).toBe(0);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(ParentJobCannotBeReplacedError);
    expect(refusals[0]!.message).toContain('C:shared');
    // The owner still has its child.
    expect(await s.redis.hget(`${s.prefix}:C:shared`, 'parentKey')).toBe(`${s.prefix}:P:owner`);
  });

  it('the passing twin: re-adding the owner’s own flow is a duplicate, not a conflict', async () => {
    const s = await setup();
    const again = await s.producer.add({
      name: 'owner',
      queueName: 'P',
      opts: { jobId: 'owner' },
      children: [leaf('shared', 'C', { jobId: 'shared' })],
    });
    expect(again.children![0]!.job.id).toBe('shared');
    expect(await s.redis.smembers(`${s.prefix}:P:owner:dependencies`)).toContain(
      `${s.prefix}:C:shared`,
    );
  });
});

describe('a closed producer', () => {
  it('refuses add and addBulk with ClosedError and writes nothing', async () => {
    const s = await setup();
    await s.producer.close();
    await s.refused(() => s.producer.add(deepFlow(leaf('late'))), ClosedError);
    await s.refused(() => s.producer.addBulk([deepFlow(leaf('late'))]), ClosedError);
  });
});
