/**
 * The jobs in the trees FlowProducer returns (add, addBulk, getFlow) are full Job instances whose
 * children API works; and removing a parent's unprocessed children leaves what bullmq's
 * job.removeUnprocessedChildren leaves, on twin queues.
 */
import { FlowProducer as BullFlowProducer, Queue as BullQueue } from 'bullmq';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Job, Queue, Worker, type FlowJob } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const conn = () => ({ connection: redisOptions() });

function flow(queueName: string, parentId: string): FlowJob {
  return {
    name: 'parent',
    queueName,
    opts: { jobId: parentId },
    children: [
      { name: 'ok', queueName, data: { n: 1 }, opts: { jobId: `${parentId}-ok` } },
      {
        name: 'bad',
        queueName,
        opts: { jobId: `${parentId}-bad`, ignoreDependencyOnFailure: true },
      },
    ],
  };
}

describe('jobs of a returned flow tree', () => {
  it('are Job instances whose children API works, from add, addBulk and getFlow', async () => {
    const queueName = uniqueQueueName('tree');
    const producer = track(new FlowProducer(conn()));
    const added = await producer.add(flow(queueName, 'p1'));
    const [bulk] = await producer.addBulk([flow(queueName, 'p2')]);
    const worker = track(
      new Worker(
        queueName,
        async (job) => {
          if (job.name === 'bad') throw new Error('nope');
          if (job.name === 'ok') return { got: job.data };
          return 'parent done';
        },
        conn(),
      ),
    );
    const queue = track(new Queue(queueName, conn()));
    await waitFor(async () => (await queue.getCompletedCount()) === 4, 15_000);
    await worker.close();
    const read = await producer.getFlow({ id: 'p1', queueName });

    for (const [parent, id] of [
      [added.job, 'p1'],
      [bulk!.job, 'p2'],
      [read!.job, 'p1'],
    ] as const) {
      expect(parent).toBeInstanceOf(Job);
      const okKey = `bull:${queueName}:${id}-ok`;
      expect(await parent.getChildrenValues()).toEqual({ [okKey]: { got: { n: 1 } } });
      expect(await parent.getIgnoredChildrenFailures()).toEqual({
        [`bull:${queueName}:${id}-bad`]: 'nope',
      });
      expect(await parent.getDependenciesCount()).toEqual({
        processed: 1,
        unprocessed: 0,
        ignored: 1,
        failed: 0,
      });
      expect((await parent.getDependencies()).processed).toEqual({ [okKey]: { got: { n: 1 } } });
      expect(await parent.getState()).toBe('completed');
    }
    for (const child of [...added.children!, ...read!.children!]) {
      expect(child.job).toBeInstanceOf(Job);
      expect(child.job.parentKey).toBe(`bull:${queueName}:p1`);
    }
  });
});

/** Every key of a queue, with the queue name replaced, and the parent's state and deps. */
async function endState(redis: Redis, queueName: string, parentId: string) {
  const keys = (await redis.keys(`bull:${queueName}:*`))
    .map((key) => key.slice(`bull:${queueName}:`.length))
    .filter((key) => !['stalled-check', 'marker', 'id', 'meta'].includes(key))
    .sort();
  return {
    keys,
    wait: (await redis.lrange(`bull:${queueName}:wait`, 0, -1)).sort(),
    waitingChildren: await redis.zrange(`bull:${queueName}:waiting-children`, 0, -1),
    deps: await redis.smembers(`bull:${queueName}:${parentId}:dependencies`),
  };
}

describe('removing unprocessed children', () => {
  it('leaves what bullmq leaves: pending children (and theirs) gone, parent released', async () => {
    const tree = (queueName: string): Parameters<BullFlowProducer['add']>[0] => ({
      name: 'p',
      queueName,
      opts: { jobId: 'par' },
      children: [
        { name: 'wait', queueName, opts: { jobId: 'c-wait' } },
        { name: 'delayed', queueName, opts: { jobId: 'c-delayed', delay: 60_000 } },
        {
          name: 'sub',
          queueName,
          opts: { jobId: 'c-sub' },
          children: [{ name: 'gc', queueName, opts: { jobId: 'gc' } }],
        },
      ],
    });
    const redis = track(rawClient());
    const ours = uniqueQueueName('ruc-ours');
    const theirs = uniqueQueueName('ruc-theirs');
    const bullProducer = track(new BullFlowProducer(conn()));
    const theirTree = await bullProducer.add(tree(theirs));
    await theirTree.job.removeUnprocessedChildren();

    const producer = track(new FlowProducer(conn()));
    const ourTree = await producer.add(tree(ours) as FlowJob);
    track(new Queue(ours, conn()));
    // bullmq's Job method, on the tree's job as bullmq code calls it.
    await ourTree.job.removeUnprocessedChildren();

    const mine = await endState(redis, ours, 'par');
    expect(mine).toEqual(await endState(redis, theirs, 'par'));
    expect(mine.wait).toEqual(['par']);
    expect(mine.deps).toEqual([]);
    const bull = track(new BullQueue(ours, { ...conn(), skipMetasUpdate: true }));
    expect(await bull.getJobState('par')).toBe('waiting');
  });

  it('keeps locked and failed children', async () => {
    const queueName = uniqueQueueName('ruc-keep');
    const producer = track(new FlowProducer(conn()));
    await producer.add({
      name: 'p',
      queueName,
      opts: { jobId: 'par' },
      children: [
        { name: 'a', queueName, opts: { jobId: 'c-locked' } },
        { name: 'b', queueName, opts: { jobId: 'c-failed' } },
        { name: 'c', queueName, opts: { jobId: 'c-pending' } },
        // A custom id with colons: the child key must not be split inside the id.
        { name: 'd', queueName, opts: { jobId: 'x:y:z' } },
      ],
    });
    const redis = track(rawClient());
    // Shape the states by hand: one child held by a worker, one failed without a policy (it
    // stays pending in its parent).
    await redis.lrem(`bull:${queueName}:wait`, 0, 'c-locked');
    await redis.lpush(`bull:${queueName}:active`, 'c-locked');
    await redis.set(`bull:${queueName}:c-locked:lock`, 'token', 'PX', 30_000);
    await redis.lrem(`bull:${queueName}:wait`, 0, 'c-failed');
    await redis.zadd(`bull:${queueName}:failed`, Date.now(), 'c-failed');
    const queue = track(new Queue(queueName, conn()));
    expect(await queue.ops.removeUnprocessedChildren('par')).toBe(2);
    expect(await redis.lrange(`bull:${queueName}:wait`, 0, -1)).toEqual([]);
    expect(await redis.exists(`bull:${queueName}:x:y:z`)).toBe(0);
    expect((await redis.smembers(`bull:${queueName}:par:dependencies`)).sort()).toEqual([
      `bull:${queueName}:c-failed`,
      `bull:${queueName}:c-locked`,
    ]);
    expect(await redis.exists(`bull:${queueName}:c-pending`)).toBe(0);
    expect(await queue.getJobState('par')).toBe('waiting-children');
  });
});
