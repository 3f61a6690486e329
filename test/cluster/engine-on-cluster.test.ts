/**
 * The engine on a real Redis Cluster (3 masters, 3 replicas; test/helpers/redis-cluster.ts):
 * a Cluster instance is accepted as a connection, queues whose keys would span slots are refused
 * at construction, and the core scenarios run with queues spread over the masters by their hash
 * tags (docs/scaling.md).
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchWorker,
  FlowProducer,
  Queue,
  QueueEvents,
  ValidationError,
  Worker,
  type Job,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
let deployment: RedisCluster | undefined;
let admin: Cluster;

beforeAll(async () => {
  deployment = await startRedisCluster();
  admin = new Cluster(deployment.nodes);
}, 60_000);

afterAll(async () => {
  await admin?.quit().catch(() => undefined);
  await deployment?.stop();
});

/** A Cluster connection of its own (a test closes what it opened). */
function cluster(): Cluster {
  return track(new Cluster(deployment!.nodes, { redisOptions: { maxRetriesPerRequest: null } }));
}

/** Processes jobs of `name` on the cluster until `count` finished; returns what they returned. */
async function processAll<T>(
  name: string,
  count: number,
  processor: (job: Job) => Promise<T>,
  opts: Record<string, unknown> = {},
): Promise<Map<string, T>> {
  const results = new Map<string, T>();
  const worker = track(
    new Worker(name, processor, { connection: cluster(), clusterHashTags: true, ...opts }),
  );
  worker.on('completed', (job, value: T) => results.set(job.id!, value));
  await waitFor(() => results.size >= count, 20_000);
  return results;
}

describe('connections to a Redis Cluster', () => {
  it('writes through a Cluster instance to the cluster, not to a default server', async () => {
    const name = uniqueQueueName('on-cluster');
    const queue = track(new Queue(name, { connection: cluster(), clusterHashTags: true }));
    expect(queue.name).toBe(`{${name}}`);
    const job = await queue.add('hello', { n: 1 });
    // The job hash is on the cluster, in the slot of the queue's tag.
    expect(await admin.hget(`bull:{${name}}:${job.id}`, 'name')).toBe('hello');
  });

  it('spreads queues with different tags over the masters', async () => {
    const names = Array.from({ length: 12 }, (_, i) => uniqueQueueName(`spread-${i}`));
    const connection = cluster();
    // Each Queue listens for the shared connection's errors.
    connection.setMaxListeners(20);
    for (const name of names) {
      const queue = track(new Queue(name, { connection, clusterHashTags: true }));
      await queue.add('x', {});
    }
    const holders = new Set<string>();
    for (const master of admin.nodes('master')) {
      const keys = await master.keys('bull:{spread-*}:meta');
      if (keys.some((key) => names.some((name) => key.includes(name)))) {
        holders.add(`${master.options.port}`);
      }
    }
    expect(holders.size).toBeGreaterThan(1);
  });

  it('refuses, at construction, a queue whose keys would span slots', () => {
    const connection = cluster();
    const refused = /cannot run on Redis Cluster: its keys would spread over several hash slots/;
    expect(() => new Queue('plain', { connection })).toThrow(refused);
    expect(() => new Worker('plain', async () => 1, { connection })).toThrow(refused);
    expect(() => new QueueEvents('plain', { connection })).toThrow(ValidationError);
    // A brace left open in the prefix would be closed by whatever follows in each key.
    expect(() => new Queue('x', { connection, prefix: 'bull{' })).toThrow(refused);
    // A tag in the prefix or in the name is enough.
    track(new Queue('plain', { connection, prefix: '{bull}' }));
    track(new Queue('{plain}', { connection }));
  });

  it('refuses a parent in a queue of another slot, writing nothing', async () => {
    const connection = cluster();
    const name = uniqueQueueName('child-side');
    const queue = track(new Queue(name, { connection, clusterHashTags: true }));
    await expect(
      queue.add('child', {}, { parent: { id: 'p', queue: 'bull:{elsewhere}' } }),
    ).rejects.toThrow(/must share one hash tag/);
    expect(await queue.count()).toBe(0);
  });

  it('refuses connection values that are neither a client nor options', () => {
    for (const bad of [42, 'localhost:6379', [], new Date(), { host: 6379 }, { port: 'x' }]) {
      expect(() => new Queue('q', { connection: bad as never })).toThrow(ValidationError);
    }
    expect(() => new Queue('q', { connection: { sentinels: [{ port: 1 }] } })).toThrow(
      /connection.name must be the Sentinel master's name/,
    );
  });
});

describe('the core scenarios on a Redis Cluster', () => {
  it('adds, processes and reports through QueueEvents', async () => {
    const name = uniqueQueueName('core');
    const events = track(new QueueEvents(name, { connection: cluster(), clusterHashTags: true }));
    await events.waitUntilReady();
    const completed: string[] = [];
    events.on('completed', ({ jobId }) => completed.push(jobId));
    const queue = track(new Queue(name, { connection: cluster(), clusterHashTags: true }));
    const jobs = await queue.addBulk(
      Array.from({ length: 20 }, (_, n) => ({ name: 'sum', data: { n } })),
    );
    const results = await processAll(name, 20, async (job) => (job.data as { n: number }).n * 2, {
      concurrency: 5,
    });
    expect(results.get(jobs[3]!.id!)).toBe(6);
    await waitFor(() => completed.length === 20);
    expect(await queue.getJobCounts('completed')).toEqual({ completed: 20 });
  });

  it('retries with backoff, delays, and runs higher priorities first', async () => {
    const name = uniqueQueueName('timing');
    const queue = track(new Queue(name, { connection: cluster(), clusterHashTags: true }));
    const flaky = await queue.add(
      'flaky',
      {},
      { attempts: 3, backoff: { type: 'fixed', delay: 100 } },
    );
    const late = await queue.add('late', {}, { delay: 300 });
    await queue.add('low', {}, { priority: 10 });
    await queue.add('high', {}, { priority: 1 });
    const order: string[] = [];
    const results = await processAll(
      name,
      4,
      async (job) => {
        order.push(job.name);
        if (job.name === 'flaky' && job.attemptsMade < 2) throw new Error('not yet');
        return job.attemptsMade;
      },
      { concurrency: 1 },
    );
    expect(results.get(flaky.id!)).toBe(2);
    expect(order.indexOf('high')).toBeLessThan(order.indexOf('low'));
    const lateJob = await queue.getJob(late.id!);
    expect(lateJob!.processedOn! - lateJob!.timestamp).toBeGreaterThanOrEqual(300);
  });

  it('rate limits, deduplicates and keeps tenant groups apart', async () => {
    const name = uniqueQueueName('traffic');
    const queue = track(new Queue(name, { connection: cluster(), clusterHashTags: true }));
    const first = await queue.add('d', {}, { deduplication: { id: 'same' } });
    const second = await queue.add('d', {}, { deduplication: { id: 'same' } });
    expect(second.id).toBe(first.id);
    await queue.setGroupConcurrency('tenant-a', 1);
    await queue.addBulk(
      ['tenant-a', 'tenant-a', 'tenant-b'].map((id) => ({
        name: 'g',
        data: {},
        opts: { group: { id } },
      })),
    );
    let runningA = 0;
    let maxA = 0;
    const started: number[] = [];
    await processAll(
      name,
      4,
      async (job) => {
        started.push(Date.now());
        if (job.opts.group?.id === 'tenant-a') {
          maxA = Math.max(maxA, ++runningA);
          await new Promise((resolve) => setTimeout(resolve, 50));
          runningA--;
        }
      },
      { concurrency: 4, limiter: { max: 2, duration: 500 } },
    );
    expect(maxA).toBe(1);
    // Four jobs at two per 500 ms: the last two start a window after the first two.
    started.sort((a, b) => a - b);
    expect(started[3]! - started[0]!).toBeGreaterThanOrEqual(400);
  });

  it('runs job schedulers and batches', async () => {
    const name = uniqueQueueName('sched');
    const queue = track(new Queue(name, { connection: cluster(), clusterHashTags: true }));
    await queue.upsertJobScheduler('fast', { every: 200 }, { name: 'tick' });
    await processAll(name, 3, async () => 'tick');
    expect(await queue.getJobSchedulersCount()).toBe(1);
    expect(await queue.removeJobScheduler('fast')).toBe(true);

    const batchName = uniqueQueueName('batch');
    const batchQueue = track(
      new Queue(batchName, { connection: cluster(), clusterHashTags: true }),
    );
    await batchQueue.addBulk(Array.from({ length: 30 }, (_, n) => ({ name: 'b', data: { n } })));
    const sizes: number[] = [];
    track(
      new BatchWorker(
        batchName,
        async (jobs) => {
          sizes.push(jobs.length);
          return jobs.map(() => 'ok');
        },
        { connection: cluster(), clusterHashTags: true, batchSize: 10 },
      ),
    );
    await waitFor(async () => (await batchQueue.getJobCounts('completed')).completed === 30);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
  });

  it('adds and completes a flow across queues under one cluster tag', async () => {
    const tag = uniqueQueueName('flow');
    const flows = track(FlowProducer.forCluster(tag, { connection: cluster() }));
    const prefix = `{${tag}}:bull`;
    const tree = await flows.add({
      name: 'parent',
      queueName: 'parents',
      children: [
        { name: 'a', queueName: 'children', data: { v: 1 } },
        { name: 'b', queueName: 'children', data: { v: 2 } },
      ],
    });
    const childValues = new Map<string, number>();
    track(
      new Worker('children', async (job) => (job.data as { v: number }).v, {
        connection: cluster(),
        prefix,
      }),
    );
    const parentDone = new Promise<Record<string, number>>((resolve) => {
      const worker = track(
        new Worker(
          'parents',
          async (job) => job.getChildrenValues<number>() as Promise<Record<string, number>>,
          { connection: cluster(), prefix },
        ),
      );
      worker.on('completed', (_job, value: Record<string, number>) => resolve(value));
    });
    const values = await parentDone;
    for (const [key, value] of Object.entries(values)) childValues.set(key, value);
    expect([...childValues.values()].sort()).toEqual([1, 2]);
    const read = await flows.getFlow({ id: tree.job.id!, queueName: 'parents' });
    expect(read?.children).toHaveLength(2);

    // A plain FlowProducer on the cluster refuses a flow whose queues carry different tags.
    const plain = track(new FlowProducer({ connection: cluster() }));
    await expect(
      plain.add({ name: 'p', queueName: '{one}', children: [{ name: 'c', queueName: '{two}' }] }),
    ).rejects.toThrow(/must share one hash tag/);
  });

  it('applies every failure policy to a flow across three queues under one cluster tag', async () => {
    const tag = uniqueQueueName('policies');
    const prefix = `{${tag}}:bull`;
    const flows = track(FlowProducer.forCluster(tag, { connection: cluster() }));
    const policies = [
      'failParentOnFailure',
      'ignoreDependencyOnFailure',
      'removeDependencyOnFailure',
      'continueParentOnFailure',
    ] as const;
    // Each parent has a child that fails (with the policy) in one queue and one that succeeds in
    // another: three queues, one slot.
    const trees = await flows.addBulk(
      policies.map((policy) => ({
        name: policy,
        queueName: 'parents',
        children: [
          { name: 'fails', queueName: 'failing', opts: { [policy]: true, attempts: 1 } },
          { name: 'works', queueName: 'working' },
        ],
      })),
    );
    const connection = cluster();
    track(
      new Worker('failing', async () => Promise.reject(new Error('no')), { connection, prefix }),
    );
    track(new Worker('working', async () => 'ok', { connection, prefix }));
    const ran = new Map<string, { ignored: Record<string, string>; values: object }>();
    track(
      new Worker(
        'parents',
        async (job) => {
          ran.set(job.name, {
            ignored: await job.getIgnoredChildrenFailures(),
            values: await job.getChildrenValues(),
          });
          return 'parent done';
        },
        { connection, prefix },
      ),
    );
    const parents = track(new Queue('parents', { connection, prefix }));
    const stateOf = (policy: (typeof policies)[number]) =>
      parents.getJobState(trees[policies.indexOf(policy)]!.job.id!);
    await waitFor(async () => (await stateOf('failParentOnFailure')) === 'failed', 20_000);
    for (const policy of policies.slice(1)) {
      await waitFor(async () => (await stateOf(policy)) === 'completed', 20_000);
    }
    expect(ran.has('failParentOnFailure')).toBe(false);
    expect(Object.values(ran.get('ignoreDependencyOnFailure')!.ignored)).toEqual(['no']);
    expect(Object.values(ran.get('removeDependencyOnFailure')!.ignored)).toEqual([]);
    expect(ran.has('continueParentOnFailure')).toBe(true);
  });
});
