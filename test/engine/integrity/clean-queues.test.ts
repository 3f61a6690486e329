/**
 * The integrity checker reports healthy queues clean: jobs in every state made by OxMQ (a Worker
 * holding one active job, a flow parent waiting for its child, a tenant group's jobs) and by
 * bullmq 6.7.0.
 */
import { FlowProducer as BullFlowProducer, Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker, type Job } from 'oxmq';
import { checkQueueIntegrityToEnd, INVARIANTS, type IntegrityReport } from 'oxmq/admin';
import { useCleanup } from '../../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../../helpers/redis';
import { queueKey } from '../../helpers/redis-state';

const track = useCleanup();

function expectClean(report: IntegrityReport): void {
  const broken = INVARIANTS.filter((name) => report.counts[name] > 0);
  expect({ broken, samples: report.samples }).toEqual({ broken: [], samples: report.samples });
  expect(report.clean).toBe(true);
  expect(report.unverified).toBe(0);
  expect(report.cursor).toBeUndefined();
}

/** A processor that fails `fail` jobs and holds `hold` jobs until `release` is called. */
function holdingProcessor() {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const processor = async (job: { name: string }) => {
    if (job.name === 'fail') throw new Error('boom');
    if (job.name === 'hold') await held;
    return 'done';
  };
  return { processor, release: () => release() };
}

/** The running job's lock has a TTL and the marker holds what workers block on. */
async function expectLockAndMarker(redis: ReturnType<typeof rawClient>, name: string) {
  const [running] = await redis.lrange(queueKey(name, 'active'), 0, 0);
  expect(await redis.pttl(`${queueKey(name, running!)}:lock`)).toBeGreaterThan(0);
  expect(await redis.type(queueKey(name, 'marker'))).toBe('zset');
}

describe('checkQueueIntegrity on healthy queues', () => {
  it('reports an OxMQ queue with jobs in every state clean', async () => {
    const name = uniqueQueueName('fsck-oxmq');
    const redis = track(rawClient());
    const connection = redisOptions();
    const queue = track(new Queue(name, { connection }));
    const { processor, release } = holdingProcessor();
    const worker = track(
      new Worker(name, (job: Job) => processor(job), { connection, concurrency: 1 }),
    );
    try {
      await queue.add('ok', { n: 1 });
      await queue.add('fail', { n: 2 }, { attempts: 2 });
      await waitFor(
        async () =>
          (await redis.zcard(queueKey(name, 'completed'))) === 1 &&
          (await redis.zcard(queueKey(name, 'failed'))) === 1,
      );
      await queue.add('hold', {});
      await waitFor(async () => (await redis.llen(queueKey(name, 'active'))) === 1);
      await queue.add('waiting', {});
      await queue.add('urgent', {}, { priority: 1 });
      await queue.add('later', {}, { priority: 3 });
      await queue.add('delayed', {}, { delay: 60_000 });
      await queue.add('tenant', {}, { group: { id: 'acme' } });
      await queue.add('tenant', {}, { group: { id: 'acme' } });
      await queue.add('tenant-later', {}, { group: { id: 'acme' }, delay: 60_000 });
      const flows = track(new FlowProducer({ connection }));
      await flows.add({
        name: 'parent',
        queueName: name,
        children: [{ name: 'child', queueName: name, opts: { delay: 60_000 } }],
      });

      const states = await Promise.all(
        ['wait', 'active', 'prioritized', 'delayed', 'waiting-children', 'completed', 'failed'].map(
          (state) => redis.type(queueKey(name, state)),
        ),
      );
      expect(states).not.toContain('none');
      await expectLockAndMarker(redis, name);
      expect(await redis.llen(queueKey(name, 'group:acme:wait'))).toBe(2);
      expect(await redis.zcard(queueKey(name, 'group-delayed'))).toBe(1);

      const report = await checkQueueIntegrityToEnd(redis, { prefix: 'bull', name });
      expectClean(report);
      // 11 jobs in states, walked once and found again by the key scan.
      expect(report.scanned).toBeGreaterThanOrEqual(22);
      expect(worker.isRunning()).toBe(true);
    } finally {
      release();
    }
  });

  it('reports an OxMQ queue with grouped jobs running clean', async () => {
    const name = uniqueQueueName('fsck-groups');
    const redis = track(rawClient());
    const connection = redisOptions();
    const queue = track(new Queue(name, { connection }));
    const worker = track(new Worker(name, null, { connection }));
    for (const gid of ['acme', 'acme', 'globex', 'globex']) {
      await queue.add('tenant', {}, { group: { id: gid } });
    }
    const first = await worker.getNextJob('token-1');
    const second = await worker.getNextJob('token-2');
    expect([first?.id, second?.id]).not.toContain(undefined);
    const activeSets = await Promise.all(
      ['acme', 'globex'].map((gid) => redis.scard(queueKey(name, `group:${gid}:active`))),
    );
    expect(activeSets.reduce((sum, count) => sum + count, 0)).toBe(2);
    await expectLockAndMarker(redis, name);
    expectClean(await checkQueueIntegrityToEnd(redis, { prefix: 'bull', name }));
    // One finishes: it leaves its group's active set with active.
    await first!.moveToCompleted('done', 'token-1', false);
    expectClean(await checkQueueIntegrityToEnd(redis, { prefix: 'bull', name }));
  });

  it('reports a bullmq 6.7.0 queue with jobs in every state clean', async () => {
    const name = uniqueQueueName('fsck-bull');
    const redis = track(rawClient());
    const connection = redisOptions();
    const queue = track(new BullQueue(name, { connection }));
    const { processor, release } = holdingProcessor();
    track(new BullWorker(name, processor, { connection, concurrency: 1 }));
    try {
      await queue.add('ok', { n: 1 });
      await queue.add('fail', { n: 2 }, { attempts: 2 });
      await waitFor(
        async () =>
          (await redis.zcard(queueKey(name, 'completed'))) === 1 &&
          (await redis.zcard(queueKey(name, 'failed'))) === 1,
      );
      await queue.add('hold', {});
      await waitFor(async () => (await redis.llen(queueKey(name, 'active'))) === 1);
      await queue.add('waiting', {});
      await queue.add('urgent', {}, { priority: 1 });
      await queue.add('later', {}, { priority: 3 });
      await queue.add('delayed', {}, { delay: 60_000 });
      const flows = track(new BullFlowProducer({ connection }));
      await flows.add({
        name: 'parent',
        queueName: name,
        children: [{ name: 'child', queueName: name, opts: { delay: 60_000 } }],
      });
      const states = await Promise.all(
        ['wait', 'active', 'prioritized', 'delayed', 'waiting-children', 'completed', 'failed'].map(
          (state) => redis.type(queueKey(name, state)),
        ),
      );
      expect(states).not.toContain('none');
      await expectLockAndMarker(redis, name);

      const report = await checkQueueIntegrityToEnd(redis, { prefix: 'bull', name });
      expectClean(report);
      expect(report.scanned).toBeGreaterThanOrEqual(18);
    } finally {
      release();
    }
  });
});
