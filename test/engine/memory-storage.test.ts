/**
 * The memory storage through the public classes: Queue, Worker, QueueEvents, FlowProducer and
 * QueueEventsProducer run on `memoryStorage()` with no `connection` option and no Redis at all,
 * which is what the storage seam promises (docs/engine-package.md).
 */
import { describe, expect, it } from 'vitest';
import {
  FlowProducer,
  Queue,
  QueueEvents,
  QueueEventsProducer,
  ValidationError,
  Worker,
  memoryStorage,
  type Job,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { waitFor } from '../helpers/redis';

const track = useCleanup();

describe('the memory storage', () => {
  it('runs jobs, their events and their retries without Redis', async () => {
    const storage = memoryStorage();
    const queue = track(new Queue('mem', { storage }));
    const events = track(new QueueEvents('mem', { storage }));
    await events.waitUntilReady();
    let tries = 0;
    track(
      new Worker(
        'mem',
        async (job: Job<{ n: number }>) => {
          if (job.name === 'flaky' && ++tries === 1) throw new Error('once');
          return job.data.n * 2;
        },
        { storage },
      ),
    );
    const job = await queue.add('double', { n: 21 });
    expect(await job.waitUntilFinished(events, 5_000)).toBe(42);
    const flaky = await queue.add('flaky', { n: 1 }, { attempts: 2 });
    expect(await flaky.waitUntilFinished(events, 5_000)).toBe(2);
    expect((await queue.getJob(flaky.id!))?.attemptsMade).toBe(2);
    expect(await queue.getJobCounts('completed', 'failed')).toEqual({ completed: 2, failed: 0 });
    // What only Redis has answers as for an empty Redis; what needs Redis says so.
    expect(await queue.getWorkers()).toEqual([]);
    await expect(queue.exportPrometheusMetrics()).rejects.toBeInstanceOf(ValidationError);
  });

  it('runs a flow across queues, and delayed jobs when they are due', async () => {
    const storage = memoryStorage();
    const parents = track(new Queue('parents', { storage }));
    const flows = track(new FlowProducer({ storage }));
    for (const name of ['parents', 'children']) {
      track(
        new Worker(
          name,
          async (job) => (name === 'parents' ? await job.getChildrenValues() : job.data),
          { storage },
        ),
      );
    }
    const tree = await flows.add({
      name: 'sum',
      queueName: 'parents',
      children: [
        { name: 'a', queueName: 'children', data: 1 },
        { name: 'b', queueName: 'children', data: 2, opts: { delay: 200 } },
      ],
    });
    const parentId = tree.job.id!;
    await waitFor(async () => (await parents.getJobState(parentId)) === 'completed');
    const values = (await parents.getJob(parentId))!.returnvalue as Record<string, number>;
    expect(Object.values(values).sort()).toEqual([1, 2]);
  });

  it("cancels a job through the storage's live workers, and publishes custom events", async () => {
    const storage = memoryStorage();
    const queue = track(new Queue('cancel', { storage }));
    const events = track(new QueueEvents('cancel', { storage }));
    await events.waitUntilReady();
    const started = new Promise<void>((resolve) => {
      track(
        new Worker(
          'cancel',
          (_job, _token, signal) =>
            new Promise((_resolve, reject) => {
              resolve();
              signal?.addEventListener('abort', () => reject(new Error('stopped')));
            }),
          { storage, heartbeatInterval: 60_000 },
        ),
      );
    });
    const job = await queue.add('long', {});
    await started;
    // The worker's heartbeat registered it; the request wakes it at once, not at its next beat.
    await waitFor(async () => (await queue.cancelJob(job.id!, 'enough')) === 'requested');
    await expect(job.waitUntilFinished(events, 5_000)).rejects.toThrow(/enough/);

    const producer = track(new QueueEventsProducer('cancel', { storage }));
    const custom = new Promise((resolve) => events.once('custom' as never, resolve));
    await producer.publishEvent({ eventName: 'custom', hello: 'memory' });
    expect(await custom).toEqual({ hello: 'memory' });
  });

  it('still needs a connection for Redis, the default storage', () => {
    expect(() => new Queue('nowhere', {})).toThrow('Queue needs a connection option');
    expect(() => new Worker('nowhere', async () => 1, {})).toThrow(
      'Worker needs a connection option',
    );
  });
});
