/**
 * The atomic reads (lua/readTogether-1.lua) on a real Redis Cluster, every master at maxmemory:
 * the script call goes to the master of the queue's slot (its route key, the queue's base) and
 * reads the queue's keys there, so getRanges, a job's logs, metrics, the rate limit, a parent's
 * dependencies and a scheduler answer on a Cluster that is full
 * (docs/scaling.md, docs/reliability.md).
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster';
import { uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
let deployment: RedisCluster | undefined;

beforeAll(async () => {
  deployment = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
}, 60_000);

afterAll(async () => {
  await deployment?.stop();
});

function cluster(): Cluster {
  return track(new Cluster(deployment!.nodes, { redisOptions: { maxRetriesPerRequest: null } }));
}

async function setMaxmemory(value: string): Promise<void> {
  for (const master of await deployment!.masters()) {
    const node = new Redis({ host: master.host, port: master.port });
    await node.config('SET', 'maxmemory', value);
    await node.quit();
  }
}

describe('reads on a full Redis Cluster', () => {
  it('answer for queues on a Cluster whose masters are all full', async () => {
    const names = [1, 2, 3].map(() => `{${uniqueQueueName('cluster-reads')}}`);
    const queues = names.map((name) => track(new Queue(name, { connection: cluster() })));
    const flows = track(new FlowProducer({ connection: cluster() }));
    for (const [i, queue] of queues.entries()) {
      const worker = track(
        new Worker(names[i]!, null, {
          connection: cluster(),
          metrics: { maxDataPoints: 10 },
        }),
      );
      await queue.add('done', {}, { jobId: 'c1' });
      const done = (await worker.getNextJob('t'))!;
      await done.moveToCompleted('ok', 't', false);
      await queue.add('w', {}, { jobId: 'w1' });
      await queue.addJobLog('w1', 'a line');
      await flows.add({
        name: 'parent',
        queueName: names[i]!,
        opts: { jobId: 'parent1' },
        children: [{ name: 'child', queueName: names[i]!, opts: { jobId: 'child1' } }],
      });
      await queue.upsertJobScheduler('new-year', { pattern: '0 0 1 1 *' });
      await queue.rateLimit(600_000);
    }

    await setMaxmemory('1');
    try {
      await expect(queues[0]!.add('late', {})).rejects.toThrow(/maxmemory/);
      for (const queue of queues) {
        expect([...(await queue.getRanges(['completed', 'waiting'], 0, -1))].sort()).toEqual([
          'c1',
          'child1',
          'w1',
        ]);
        expect(await queue.getJobLogs('w1')).toEqual({ logs: ['a line'], count: 1 });
        expect((await queue.getMetrics('completed')).meta.count).toBe(1);
        expect(await queue.getRateLimitTtl()).toBeGreaterThan(0);
        const parent = (await queue.getJob('parent1'))!;
        expect((await parent.getDependencies()).unprocessed).toEqual([`${queue.keys.base}child1`]);
        expect((await queue.getJobScheduler('new-year'))?.pattern).toBe('0 0 1 1 *');
      }
    } finally {
      await setMaxmemory('0');
    }
  }, 60_000);
});
