/**
 * OxMQ flows end to end (docs/redis-keys.md, flows): deep and wide trees complete with the right values,
 * per-queue defaults, addBulk, the returned JobNode tree, cluster-safe prefixes
 * (FlowProducer.forCluster, QueueKeys.forClusterFlow), and a parent that cannot complete because
 * a failParentOnFailure child failed while it ran (-9).
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FlowProducer as BullFlowProducer } from 'bullmq';
import {
  FlowProducer,
  ParentJobCannotBeReplacedError,
  ParentJobNotFoundError,
  Queue,
  QueueKeys,
  ValidationError,
  Worker,
  type FlowJob,
  type Job,
  type JobNode,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { gate } from '../helpers/flow-sides';
import { hashSlot, keysUnder, processedValues, snapshot } from '../helpers/flow-state';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const jobKey = (job: Job) => `${job.prefix}:${job.queueName}:${job.id}`;

/** A worker that records the ids it completed and any error it reported. */
function worker(
  queueName: string,
  processor: (job: Job) => Promise<unknown>,
  opts: { concurrency?: number; prefix?: string } = {},
) {
  const completed: string[] = [];
  const failed: { id: string; reason: string }[] = [];
  const errors: Error[] = [];
  const w = track(new Worker(queueName, processor, { ...conn(), ...opts }));
  w.on('completed', (job) => completed.push(job.id));
  w.on('failed', (job, error) => {
    if (job) failed.push({ id: job.id, reason: error.message });
  });
  w.on('error', (error) => errors.push(error));
  return { worker: w, completed, failed, errors };
}

describe('deep and wide flows', () => {
  it('a chain 10 levels deep runs leaf first, each parent with its child’s value', async () => {
    const redis = track(rawClient());
    const queues = [uniqueQueueName('deep-a'), uniqueQueueName('deep-b')];
    const depth = 10;
    const node = (level: number): FlowJob => ({
      name: `L${level}`,
      queueName: queues[level % 2]!,
      data: { level },
      opts: { jobId: `L${level}` },
      children: level < depth ? [node(level + 1)] : undefined,
    });
    const producer = track(new FlowProducer(conn()));
    await producer.add(node(0));

    const order: number[] = [];
    const seen: Record<number, Record<string, unknown>> = {};
    const processor = async (job: Job<{ level: number }>) => {
      const level = job.data.level;
      order.push(level);
      const below = await processedValues(redis, jobKey(job));
      seen[level] = below;
      const childKey = `bull:${queues[(level + 1) % 2]}:L${level + 1}`;
      return { level, below: level < depth ? below[childKey] : null };
    };
    const workers = queues.map((q) => worker(q, processor));
    await waitFor(() => workers[0]!.completed.includes('L0'), 20_000);

    expect(order).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    for (let level = 0; level < depth; level++) expect(Object.keys(seen[level]!)).toHaveLength(1);
    expect(seen[depth]).toEqual({});
    let expected: unknown = { level: depth, below: null };
    for (let level = depth - 1; level >= 0; level--) expected = { level, below: expected };
    const root = await track(new Queue(queues[0]!, conn())).getJob('L0');
    expect(root?.returnvalue).toEqual(expected);
    expect(workers.flatMap((w) => w.errors)).toEqual([]);
  });

  it('a parent with 1,000 children across 3 queues gets all 1,000 values', async () => {
    const redis = track(rawClient());
    const parentQueue = uniqueQueueName('wide-parent');
    const childQueues = [0, 1, 2].map((i) => uniqueQueueName(`wide-${i}`));
    const count = 1000;
    const children: FlowJob[] = [];
    for (let i = 0; i < count; i++) {
      children.push({
        name: 'square',
        queueName: childQueues[i % 3]!,
        data: { i },
        opts: { jobId: `k${i}` },
      });
    }
    const producer = track(new FlowProducer(conn()));
    const tree = await producer.add({ name: 'sum', queueName: parentQueue, children });
    expect(tree.children).toHaveLength(count);
    expect(await redis.scard(`${jobKey(tree.job)}:dependencies`)).toBe(count);

    const childWorkers = childQueues.map((q) =>
      worker(q, async (job: Job<{ i: number }>) => job.data.i * job.data.i, { concurrency: 16 }),
    );
    let parentRuns = 0;
    let seen: Record<string, unknown> = {};
    const parentWorker = worker(parentQueue, async (job) => {
      parentRuns++;
      seen = await processedValues(redis, jobKey(job));
      return Object.keys(seen).length;
    });
    await waitFor(() => parentWorker.completed.length === 1, 50_000);

    const expected: Record<string, number> = {};
    for (let i = 0; i < count; i++) expected[`bull:${childQueues[i % 3]}:k${i}`] = i * i;
    expect(parentRuns).toBe(1);
    expect(seen).toEqual(expected);
    expect(await processedValues(redis, jobKey(tree.job))).toEqual(expected);
    expect(await redis.hget(jobKey(tree.job), 'returnvalue')).toBe(String(count));
    expect(childWorkers.map((w) => w.completed.length)).toEqual([334, 333, 333]);
    expect([...childWorkers, parentWorker].flatMap((w) => w.errors)).toEqual([]);
  }, 60_000);
});

describe('FlowProducer options and results', () => {
  it('queuesOptions defaults apply per queue, under each node’s own options', async () => {
    const redis = track(rawClient());
    const [R, A, B] = [uniqueQueueName('qo-r'), uniqueQueueName('qo-a'), uniqueQueueName('qo-b')];
    const producer = track(new FlowProducer(conn()));
    const defaults = {
      attempts: 4,
      backoff: { type: 'fixed', delay: 10 },
      priority: 9,
      removeOnComplete: 3,
    };
    const tree = await producer.add(
      {
        name: 'root',
        queueName: R,
        opts: { jobId: 'root' },
        children: [
          { name: 'a1', queueName: A, opts: { jobId: 'a1' } },
          { name: 'a2', queueName: A, opts: { jobId: 'a2', attempts: 1, priority: 2 } },
          { name: 'b1', queueName: B, opts: { jobId: 'b1' } },
        ],
      },
      { queuesOptions: { [A]: { defaultJobOptions: defaults } } },
    );
    const parent = { id: 'root', queue: `bull:${R}` };
    const stored = async (queue: string, id: string) =>
      JSON.parse((await redis.hget(`bull:${queue}:${id}`, 'opts')) ?? 'null') as unknown;

    expect(await stored(A, 'a1')).toEqual({ ...defaults, jobId: 'a1', parent });
    expect(await stored(A, 'a2')).toEqual({
      ...defaults,
      jobId: 'a2',
      attempts: 1,
      priority: 2,
      parent,
    });
    expect(await stored(B, 'b1')).toEqual({ jobId: 'b1', attempts: 0, parent });
    expect(await stored(R, 'root')).toEqual({ jobId: 'root', attempts: 0 });
    const [a1, a2, b1] = tree.children!.map((child) => child.job);
    expect(a1!.opts).toMatchObject(defaults);
    expect(a2!.opts).toMatchObject({ attempts: 1, priority: 2 });
    expect(b1!.opts.attempts).toBeUndefined();
    // The default priority put a1 in prioritized; a2's own priority wins over it.
    expect(await redis.zscore(`bull:${A}:prioritized`, 'a1')).toBe(String(9 * 2 ** 32 + 1));
    expect(await redis.zscore(`bull:${A}:prioritized`, 'a2')).toBe(String(2 * 2 ** 32 + 2));

    // The defaulted attempts drive retries: a1 fails 3 times and still completes.
    const aWorker = worker(A, async (job) => {
      if (job.id === 'a1' && job.attemptsMade < 3) throw new Error(`try ${job.attemptsMade}`);
      return job.id;
    });
    worker(B, async () => 'b');
    const rWorker = worker(R, async () => 'root');
    await waitFor(() => rWorker.completed.length === 1, 15_000);
    expect(await redis.hget(`bull:${A}:a1`, 'atm')).toBe('4');
    expect(aWorker.failed.map((f) => f.reason)).toEqual(['try 0', 'try 1', 'try 2']);
  });

  it('the returned JobNode tree mirrors the input: ids, names, data, parents, order', async () => {
    const redis = track(rawClient());
    const [P, C] = [uniqueQueueName('tree-p'), uniqueQueueName('tree-c')];
    const input: FlowJob = {
      name: 'root',
      queueName: P,
      data: { r: true },
      children: [
        { name: 'first', queueName: C, data: { n: 1 }, opts: { jobId: 'first' } },
        {
          name: 'mid',
          queueName: P,
          data: { n: 2 },
          opts: { failParentOnFailure: true },
          children: [
            { name: 'deep-1', queueName: C, data: { n: 3 } },
            { name: 'deep-2', queueName: P, data: { n: 4 }, opts: { jobId: 'deep-2' } },
          ],
        },
        { name: 'last', queueName: C, opts: { ignoreDependencyOnFailure: true } },
      ],
    };
    const producer = track(new FlowProducer(conn()));
    const tree = await producer.add(input);
    const reader = { [P]: track(new Queue(P, conn())), [C]: track(new Queue(C, conn())) };

    const check = async (node: JobNode, flow: FlowJob, parent?: Job): Promise<number> => {
      const { job } = node;
      expect(job.name).toBe(flow.name);
      expect(job.queueName).toBe(flow.queueName);
      expect(job.data).toEqual(flow.data ?? {});
      if (flow.opts?.jobId) expect(job.id).toBe(flow.opts.jobId);
      else expect(job.id).toMatch(UUID_V4);
      const hash = await redis.hgetall(jobKey(job));
      expect(hash.name).toBe(flow.name);
      if (parent) {
        expect(job.parentKey).toBe(jobKey(parent));
        expect(hash.parentKey).toBe(jobKey(parent));
        expect(job.parent).toMatchObject({ id: parent.id, queueKey: `bull:${parent.queueName}` });
        expect(job.opts.parent).toEqual({ id: parent.id, queue: `bull:${parent.queueName}` });
      } else {
        expect(job.parentKey).toBeUndefined();
        expect(hash.parentKey).toBeUndefined();
      }
      const read = await reader[flow.queueName]!.getJob(job.id);
      expect(read?.parentKey).toBe(job.parentKey);
      const kids = flow.children ?? [];
      if (kids.length === 0) {
        expect(node).not.toHaveProperty('children');
        expect(await job.getState()).toBe('waiting');
        return 1;
      }
      expect(await job.getState()).toBe('waiting-children');
      expect(node.children!.map((c) => c.job.name)).toEqual(kids.map((k) => k.name));
      let total = 1;
      for (let i = 0; i < kids.length; i++)
        total += await check(node.children![i]!, kids[i]! as FlowJob, job);
      return total;
    };
    expect(await check(tree, input)).toBe(6);
    expect(tree.children![1]!.job.parent).toEqual({
      id: tree.job.id,
      queueKey: `bull:${P}`,
      fpof: true,
    });
    expect(tree.children![2]!.job.parent).toEqual({
      id: tree.job.id,
      queueKey: `bull:${P}`,
      idof: true,
    });
  });

  it('addBulk adds several flows at once and returns one tree per flow', async () => {
    const redis = track(rawClient());
    const [A, B] = [uniqueQueueName('bulk-a'), uniqueQueueName('bulk-b')];
    const producer = track(new FlowProducer(conn()));
    const trees = await producer.addBulk([
      {
        name: 'f1',
        queueName: A,
        opts: { jobId: 'f1' },
        children: [
          { name: 'f1-c1', queueName: B, opts: { jobId: 'f1-c1' } },
          { name: 'f1-c2', queueName: B, opts: { jobId: 'f1-c2' } },
        ],
      },
      { name: 'f2', queueName: A, opts: { jobId: 'f2' } },
      {
        name: 'f3',
        queueName: B,
        opts: { jobId: 'f3' },
        children: [{ name: 'f3-c', queueName: A, opts: { jobId: 'f3-c' } }],
      },
    ]);
    expect(trees.map((t) => t.job.id)).toEqual(['f1', 'f2', 'f3']);
    expect(trees.map((t) => (t.children ?? []).map((c) => c.job.id))).toEqual([
      ['f1-c1', 'f1-c2'],
      [],
      ['f3-c'],
    ]);
    expect(await redis.zrange(`bull:${A}:waiting-children`, 0, -1)).toEqual(['f1']);
    expect(await redis.zrange(`bull:${B}:waiting-children`, 0, -1)).toEqual(['f3']);

    const processor = async (job: Job) => `${job.id} done`;
    const a = worker(A, processor);
    const b = worker(B, processor);
    await waitFor(() => a.completed.includes('f1') && b.completed.includes('f3'), 15_000);
    expect(await processedValues(redis, `bull:${A}:f1`)).toEqual({
      [`bull:${B}:f1-c1`]: 'f1-c1 done',
      [`bull:${B}:f1-c2`]: 'f1-c2 done',
    });
    expect(await processedValues(redis, `bull:${B}:f3`)).toEqual({
      [`bull:${A}:f3-c`]: 'f3-c done',
    });
  });

  it('addBulk skips a refused flow whole and writes the others, as bullmq skips a refused root', async () => {
    const redis = track(rawClient());
    const prefix = uniqueQueueName('bulk-atomic');
    const producer = track(new FlowProducer({ ...conn(), prefix }));
    await producer.add({
      name: 'owner',
      queueName: 'parents',
      opts: { jobId: 'owner' },
      children: [{ name: 'shared', queueName: 'kids', opts: { jobId: 'shared' } }],
    });
    const refusals: Error[] = [];
    producer.on('error', (error) => refusals.push(error));
    const before = await snapshot(redis, [prefix]);
    const trees = await producer.addBulk([
      { name: 'g1', queueName: 'parents', children: [{ name: 'g1-c', queueName: 'kids' }] },
      { name: 'g2', queueName: 'kids', opts: { jobId: 'g2' } },
      {
        name: 'g3',
        queueName: 'parents',
        children: [
          { name: 'g3-new', queueName: 'kids' },
          { name: 'shared', queueName: 'kids', opts: { jobId: 'shared' } },
        ],
      },
    ]);
    expect(refusals.map((e) => e.constructor)).toEqual([ParentJobCannotBeReplacedError]);
    const [g1, g2, g3] = trees;
    expect(await redis.exists(`${prefix}:parents:${g1!.job.id}`)).toBe(1);
    expect(await redis.exists(`${prefix}:kids:${g1!.children![0]!.job.id}`)).toBe(1);
    expect(await redis.exists(`${prefix}:kids:g2`)).toBe(1);
    // Nothing of g3: not its root, not its new child, and the shared child keeps its owner.
    expect(await redis.exists(`${prefix}:parents:${g3!.job.id}`)).toBe(0);
    expect(await redis.exists(`${prefix}:kids:${g3!.children![0]!.job.id}`)).toBe(0);
    expect(await redis.hget(`${prefix}:kids:shared`, 'parentKey')).toBe(`${prefix}:parents:owner`);
    expect(g2!.job.id).toBe('g2');
    expect(Object.keys(await snapshot(redis, [prefix])).length).toBeGreaterThan(
      Object.keys(before).length,
    );
  });

  it('addBulk with a root whose outside parent is missing matches bullmq: the others are added', async () => {
    const scenario = (queueName: string) => [
      { name: 'good', queueName, opts: { jobId: 'good-root' } },
      {
        name: 'bad',
        queueName,
        opts: { jobId: 'bad-root', parent: { id: 'missing', queue: `bull:${queueName}` } },
        children: [{ name: 'kid', queueName, opts: { jobId: 'bad-kid' } }],
      },
      {
        name: 'good2',
        queueName,
        opts: { jobId: 'good-root2' },
        children: [{ name: 'k', queueName, opts: { jobId: 'kid' } }],
      },
    ];
    const exists = async (queueName: string) => {
      const redis = track(rawClient());
      const ids = ['good-root', 'bad-root', 'bad-kid', 'good-root2', 'kid'];
      return Promise.all(ids.map((id) => redis.exists(`bull:${queueName}:${id}`)));
    };
    const ours = uniqueQueueName('bulk-ours');
    const theirs = uniqueQueueName('bulk-theirs');
    const producer = track(new FlowProducer(conn()));
    const bullProducer = track(new BullFlowProducer(conn()));
    const ourTrees = await producer.addBulk(scenario(ours));
    const theirTrees = await bullProducer.addBulk(scenario(theirs));
    expect(ourTrees.map((tree) => tree.job.id)).toEqual(theirTrees.map((tree) => tree.job.id));
    expect(await exists(ours)).toEqual(await exists(theirs));
    expect(await exists(ours)).toEqual([1, 0, 0, 1, 1]);
    // add() of the same bad flow throws, in both libraries, having written nothing.
    await expect(producer.add(scenario(ours)[1]!)).rejects.toBeInstanceOf(ParentJobNotFoundError);
    await expect(bullProducer.add(scenario(theirs)[1]!)).rejects.toThrow(/Missing key for parent/);
  });
});

describe('cluster-safe flows', () => {
  it('QueueKeys.forClusterFlow lays every key of every queue under {tag}:<prefix>', () => {
    const inventory = QueueKeys.forClusterFlow('order-pipeline', 'bull', 'inventory-queue');
    const payment = QueueKeys.forClusterFlow('order-pipeline', 'bull', 'payment-queue');
    expect(inventory.prefix).toBe('{order-pipeline}:bull');
    expect(inventory.queueName).toBe('inventory-queue');
    expect(inventory.queueKey).toBe('{order-pipeline}:bull:inventory-queue');
    expect(inventory.base).toBe('{order-pipeline}:bull:inventory-queue:');
    expect(inventory.job('1')).toBe('{order-pipeline}:bull:inventory-queue:1');
    expect(inventory.wait).toBe('{order-pipeline}:bull:inventory-queue:wait');
    expect(inventory.waitingChildren).toBe(
      '{order-pipeline}:bull:inventory-queue:waiting-children',
    );
    expect(inventory.events).toBe('{order-pipeline}:bull:inventory-queue:events');
    expect(inventory.jobLock('7')).toBe('{order-pipeline}:bull:inventory-queue:7:lock');
    expect(inventory.metrics('completed')).toBe(
      '{order-pipeline}:bull:inventory-queue:metrics:completed',
    );
    expect(QueueKeys.forClusterFlow('t', 'oxmq', 'q').job('x')).toBe('{t}:oxmq:q:x');
    // Equal to a plain QueueKeys on the tagged prefix, which is what Queue/Worker use.
    expect(new QueueKeys('{order-pipeline}:bull', 'payment-queue').wait).toBe(payment.wait);

    // One hash slot for all of them (the slot of the tag alone).
    const keys = [
      inventory.job('1'),
      inventory.wait,
      inventory.meta,
      `${inventory.job('1')}:dependencies`,
      payment.job('a-uuid'),
      payment.events,
      payment.waitingChildren,
    ];
    const slot = hashSlot('order-pipeline');
    expect(keys.map(hashSlot)).toEqual(keys.map(() => slot));
    // The checker itself is right: the Redis Cluster reference value, and untagged keys differ.
    expect(hashSlot('123456789')).toBe(0x31c3 % 16384);
    expect(hashSlot('bull:inventory-queue:1')).not.toBe(hashSlot('bull:payment-queue:1'));
  });

  it('QueueKeys.forClusterFlow refuses a bad tag, prefix or queue name', () => {
    for (const tag of ['', 'has{brace', 'has}brace', '{wrapped}']) {
      expect(() => QueueKeys.forClusterFlow(tag, 'bull', 'q')).toThrow(ValidationError);
    }
    expect(() => QueueKeys.forClusterFlow('t', '', 'q')).toThrow(ValidationError);
    expect(() => QueueKeys.forClusterFlow('t', 'bull', 'a:b')).toThrow(ValidationError);
    expect(() => QueueKeys.forClusterFlow('t', 'bull', '')).toThrow(ValidationError);
    expect(() => FlowProducer.forCluster('', conn())).toThrow(ValidationError);
  });

  it('a forCluster("order-pipeline") flow runs end to end on Queue/Worker with that prefix', async () => {
    const redis = track(rawClient());
    const prefix = '{order-pipeline}:bull';
    const producer = track(FlowProducer.forCluster('order-pipeline', conn()));
    expect(producer.prefix).toBe(prefix);
    expect(
      track(FlowProducer.forCluster('order-pipeline', { ...conn(), prefix: 'shop' })).prefix,
    ).toBe('{order-pipeline}:shop');
    const [orders, inventory, payment] = [
      uniqueQueueName('order-queue'),
      uniqueQueueName('inventory-queue'),
      uniqueQueueName('payment-queue'),
    ];
    const tree = await producer.add({
      name: 'place-order',
      queueName: orders,
      data: { order: 42 },
      children: [
        { name: 'reserve', queueName: inventory, data: { sku: 'A1', qty: 2 } },
        {
          name: 'charge',
          queueName: payment,
          data: { amount: 1999 },
          children: [{ name: 'fraud-check', queueName: inventory, data: { score: 0.1 } }],
        },
      ],
    });
    const reserve = tree.children![0]!.job;
    const charge = tree.children![1]!.job;
    const fraud = tree.children![1]!.children![0]!.job;
    expect(reserve.prefix).toBe(prefix);
    expect(await redis.exists(`{order-pipeline}:bull:${inventory}:${reserve.id}`)).toBe(1);
    expect(await redis.hget(`{order-pipeline}:bull:${inventory}:${reserve.id}`, 'parentKey')).toBe(
      `{order-pipeline}:bull:${orders}:${tree.job.id}`,
    );
    expect(
      (await redis.smembers(`{order-pipeline}:bull:${orders}:${tree.job.id}:dependencies`)).sort(),
    ).toEqual([`${prefix}:${inventory}:${reserve.id}`, `${prefix}:${payment}:${charge.id}`].sort());
    // Nothing went to the untagged prefix.
    for (const q of [orders, inventory, payment])
      expect(await keysUnder(redis, `bull:${q}`)).toEqual([]);

    const redisOf = (job: Job) => processedValues(redis, jobKey(job));
    const processor = async (job: Job) => {
      expect(job.prefix).toBe(prefix);
      if (job.name === 'reserve') return { reserved: 2 };
      if (job.name === 'fraud-check') return { ok: true };
      if (job.name === 'charge') return { charged: 1999, checks: await redisOf(job) };
      return { placed: true, steps: await redisOf(job) };
    };
    const workers = [orders, inventory, payment].map((q) => worker(q, processor, { prefix }));
    await waitFor(() => workers[0]!.completed.includes(tree.job.id), 15_000);

    const orderQueue = track(new Queue(orders, { ...conn(), prefix }));
    const placed = await orderQueue.getJob(tree.job.id);
    expect(placed?.returnvalue).toEqual({
      placed: true,
      steps: {
        [`${prefix}:${inventory}:${reserve.id}`]: { reserved: 2 },
        [`${prefix}:${payment}:${charge.id}`]: {
          charged: 1999,
          checks: { [`${prefix}:${inventory}:${fraud.id}`]: { ok: true } },
        },
      },
    });
    expect(await orderQueue.getJobCounts('completed', 'waiting-children')).toEqual({
      completed: 1,
      'waiting-children': 0,
    });
    const written = [
      ...(await keysUnder(redis, `${prefix}:${orders}`)),
      ...(await keysUnder(redis, `${prefix}:${inventory}`)),
      ...(await keysUnder(redis, `${prefix}:${payment}`)),
    ];
    expect(written.length).toBeGreaterThan(10);
    expect(new Set(written.map(hashSlot))).toEqual(new Set([hashSlot('order-pipeline')]));
    expect(workers.flatMap((w) => w.errors)).toEqual([]);
  });
});

describe('a parent whose failParentOnFailure child failed while it ran (-9)', () => {
  it('is failed as unrecoverable when its processor returns, despite attempts left', async () => {
    const redis: Redis = track(rawClient());
    const [P, C] = [uniqueQueueName('m9-p'), uniqueQueueName('m9-c')];
    const parents = track(new Queue(P, conn()));
    const children = track(new Queue(C, conn()));
    const parent = await parents.add('parent', {}, { attempts: 3, backoff: 10 });
    const childWorker = worker(C, async () => {
      throw new Error('child broke');
    });
    let defaDuringRun: string | null = null;
    let runs = 0;
    const parentWorker = worker(P, async (job) => {
      runs++;
      const child = await children.add(
        'child',
        {},
        {
          jobId: 'm9-child',
          parent: { id: job.id, queue: `bull:${P}` },
          failParentOnFailure: true,
        },
      );
      await waitFor(async () => (await redis.zscore(`bull:${C}:failed`, child.id)) !== null);
      defaDuringRun = await redis.hget(`bull:${P}:${job.id}`, 'defa');
      return 'finished anyway';
    });
    await waitFor(() => parentWorker.failed.length === 1, 15_000);

    const childKey = `bull:${C}:m9-child`;
    expect(childWorker.failed).toEqual([{ id: 'm9-child', reason: 'child broke' }]);
    expect(defaDuringRun).toBe(`child ${childKey} failed`);
    expect(runs).toBe(1);
    expect(parentWorker.completed).toEqual([]);
    expect(parentWorker.failed[0]!.reason).toMatch(/at least one failed child/);
    const hash = await redis.hgetall(`bull:${P}:${parent.id}`);
    expect(hash.failedReason).toBe(parentWorker.failed[0]!.reason);
    expect(hash.atm).toBe('1');
    expect(hash.returnvalue).toBeUndefined();
    expect(await parents.getJobState(parent.id)).toBe('failed');
    expect(await redis.zrange(`bull:${P}:${parent.id}:unsuccessful`, 0, -1)).toEqual([childKey]);
    expect(await redis.zcard(`bull:${P}:delayed`)).toBe(0);
    expect(parentWorker.errors).toEqual([]);
  });
});

describe('failParentOnFailure cascades', () => {
  it('child → parent → grandparent: each fpof level is failed in turn, no processor called', async () => {
    const redis = track(rawClient());
    const [G, P, C] = [uniqueQueueName('fc-g'), uniqueQueueName('fc-p'), uniqueQueueName('fc-c')];
    const producer = track(new FlowProducer(conn()));
    await producer.add({
      name: 'grandparent',
      queueName: G,
      opts: { jobId: 'g' },
      children: [
        {
          name: 'parent',
          queueName: P,
          opts: { jobId: 'p', failParentOnFailure: true },
          children: [
            { name: 'child', queueName: C, opts: { jobId: 'c', failParentOnFailure: true } },
            { name: 'sibling', queueName: C, opts: { jobId: 's' } },
          ],
        },
      ],
    });
    const calls: string[] = [];
    const sibling = gate();
    const processor = async (job: Job) => {
      calls.push(job.id);
      if (job.id === 'c') throw new Error('root cause');
      await sibling.opened; // `s` stays pending throughout
      return 'late';
    };
    const workers = [G, P, C].map((q) => worker(q, processor, { concurrency: 2 }));
    await waitFor(() => workers[0]!.failed.length === 1, 15_000);

    expect(workers[2]!.failed).toEqual([{ id: 'c', reason: 'root cause' }]);
    expect(workers[1]!.failed).toEqual([{ id: 'p', reason: `child bull:${C}:c failed` }]);
    expect(workers[0]!.failed).toEqual([{ id: 'g', reason: `child bull:${P}:p failed` }]);
    expect(calls.filter((id) => id === 'p' || id === 'g')).toEqual([]);
    expect(await redis.zrange(`bull:${G}:g:unsuccessful`, 0, -1)).toEqual([`bull:${P}:p`]);
    expect(await redis.zrange(`bull:${P}:p:unsuccessful`, 0, -1)).toEqual([`bull:${C}:c`]);
    expect(await redis.smembers(`bull:${P}:p:dependencies`)).toEqual([`bull:${C}:s`]);
    sibling.open();
    await waitFor(() => workers[2]!.completed.includes('s'));
    expect(workers.flatMap((w) => w.errors)).toEqual([]);
  });
});
