/**
 * bullmq 6.7.0 and OxMQ on the same Redis Cluster queues (hash-tagged names, docs/scaling.md):
 * a bullmq producer with an OxMQ worker, an OxMQ producer with a bullmq worker, each side's
 * QueueEvents seeing the other's outcomes, and a cross-queue flow under one tagged prefix
 * finished by workers of both libraries.
 */
import {
  FlowProducer as BullFlowProducer,
  Queue as BullQueue,
  QueueEvents as BullQueueEvents,
  Worker as BullWorker,
} from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowProducer, Queue, QueueEvents, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
let deployment: RedisCluster | undefined;

beforeAll(async () => {
  deployment = await startRedisCluster();
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
});

function cluster(): Cluster {
  return track(new Cluster(deployment!.nodes, { redisOptions: { maxRetriesPerRequest: null } }));
}

describe('interop with bullmq on a Redis Cluster', () => {
  it('a bullmq producer and an OxMQ worker; bullmq QueueEvents sees the results', async () => {
    const name = `{${uniqueQueueName('b-to-o')}}`;
    const events = track(new BullQueueEvents(name, { connection: cluster() }));
    await events.waitUntilReady();
    const producer = track(new BullQueue(name, { connection: cluster() }));
    const jobs = await producer.addBulk(
      Array.from({ length: 10 }, (_, n) => ({ name: 'add', data: { n } })),
    );
    track(
      new Worker(name, async (job) => (job.data as { n: number }).n + 1, { connection: cluster() }),
    );
    const value = await jobs[4]!.waitUntilFinished(events, 20_000);
    expect(value).toBe(5);
    await waitFor(async () => (await producer.getJobCounts('completed')).completed === 10, 20_000);
  });

  it('an OxMQ producer (clusterHashTags) and a bullmq worker; OxMQ QueueEvents sees the results', async () => {
    const plain = uniqueQueueName('o-to-b');
    const queue = track(new Queue(plain, { connection: cluster(), clusterHashTags: true }));
    const events = track(new QueueEvents(plain, { connection: cluster(), clusterHashTags: true }));
    await events.waitUntilReady();
    const job = await queue.add('double', { n: 21 }, { attempts: 2 });
    const seen: string[] = [];
    const worker = track(
      new BullWorker(
        queue.name,
        async (bullJob) => {
          seen.push(bullJob.name);
          if (bullJob.attemptsMade === 0) throw new Error('once');
          return (bullJob.data as { n: number }).n * 2;
        },
        { connection: cluster() },
      ),
    );
    expect(worker.name).toBe(`{${plain}}`);
    expect(await job.waitUntilFinished(events, 20_000)).toBe(42);
    expect(seen).toEqual(['double', 'double']);
  });

  it('flows under one tagged prefix cross libraries both ways', async () => {
    const tag = uniqueQueueName('flow');
    const prefix = `{${tag}}:bull`;
    const ours = track(FlowProducer.forCluster(tag, { connection: cluster() }));
    const theirs = track(new BullFlowProducer({ connection: cluster(), prefix }));
    const oursTree = await ours.add({
      name: 'parent',
      queueName: 'parents',
      children: [{ name: 'child', queueName: 'children', data: { v: 1 } }],
    });
    const theirsTree = await theirs.add({
      name: 'parent',
      queueName: 'parents',
      children: [{ name: 'child', queueName: 'children', data: { v: 2 } }],
    });
    // bullmq runs the children, OxMQ the parents.
    track(
      new BullWorker('children', async (job) => (job.data as { v: number }).v, {
        connection: cluster(),
        prefix,
      }),
    );
    const parents = new Map<string, unknown>();
    const worker = track(
      new Worker('parents', async (job) => Object.values(await job.getChildrenValues()), {
        connection: cluster(),
        prefix,
      }),
    );
    worker.on('completed', (job, value) => parents.set(job.id!, value));
    await waitFor(() => parents.size === 2, 20_000);
    expect(parents.get(oursTree.job.id!)).toEqual([1]);
    expect(parents.get(theirsTree.job.id!)).toEqual([2]);
  });
});
