/**
 * The integrity checker on a queue that moves while it reads: OxMQ and bullmq workers take,
 * retry, finish and trim jobs (plain, prioritized, delayed, grouped, flows) while checks with a
 * small budget run one after another; none of them may report anything.
 */
import { FlowProducer as BullFlowProducer, Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { checkQueueIntegrityToEnd, INVARIANTS } from 'oxmq/admin';
import { useCleanup } from '../../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName } from '../../helpers/redis';

const track = useCleanup();

describe('checkQueueIntegrity on a running queue', () => {
  it('reports nothing while workers of both libraries move the jobs', async () => {
    const name = uniqueQueueName('fsck-live');
    const redis = track(rawClient());
    const connection = redisOptions();
    const queue = track(new Queue(name, { connection }));
    const processor = async (job: { name: string; attemptsMade: number }) => {
      await sleep(Math.random() * 5);
      if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('first try fails');
      return 'ok';
    };
    const keep = { removeOnComplete: 50, removeOnFail: 50 };
    track(new Worker(name, processor, { connection, concurrency: 8 }));
    track(new BullWorker(name, processor, { connection, concurrency: 4 }));
    const flows = track(new BullFlowProducer({ connection }));

    let producing = true;
    let added = 0;
    const producer = (async () => {
      for (let i = 0; producing && i < 300; i++) {
        await queue.addBulk([
          { name: 'plain', data: { i }, opts: keep },
          { name: 'flaky', data: { i }, opts: { ...keep, attempts: 2 } },
          { name: 'urgent', data: { i }, opts: { ...keep, priority: 1 + (i % 3) } },
          { name: 'soon', data: { i }, opts: { ...keep, delay: 20 } },
          { name: 'tenant', data: { i }, opts: { ...keep, group: { id: `g${i % 3}` } } },
        ]);
        await flows.add({
          name: 'parent',
          queueName: name,
          opts: keep,
          children: [{ name: 'child', queueName: name, opts: keep }],
        });
        added += 7;
        await sleep(2);
      }
    })();

    const reports = [];
    try {
      const until = Date.now() + 3000;
      while (reports.length < 3 || Date.now() < until) {
        reports.push(
          await checkQueueIntegrityToEnd(redis, { prefix: 'bull', name }, { budget: 200 }),
        );
      }
    } finally {
      producing = false;
      await producer;
    }
    expect(added).toBeGreaterThan(200);
    expect(reports.length).toBeGreaterThanOrEqual(3);
    for (const report of reports) {
      const broken = INVARIANTS.filter((invariant) => report.counts[invariant] > 0);
      expect({ broken, samples: report.samples }).toEqual({ broken: [], samples: report.samples });
    }
  }, 60_000);
});
