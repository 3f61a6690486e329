/**
 * Worker and BatchWorker share one public lifecycle (engine/worker/worker-base.ts) without one
 * inheriting the other, and close() ends every background service (heartbeat, stalled checks,
 * lock renewal) even while a processor still runs; a service that fails to start closes the
 * worker and stops the services started before it. Observed through a real Redis.
 */
import { describe, expect, it } from 'vitest';
import {
  BatchWorker,
  ClosedError,
  Job,
  Queue,
  ValidationError,
  Worker,
  WorkerServiceStartError,
  type WorkerOptions,
} from 'oxmq';
import { QueueKeys, workerRecordKey, workersIndexKey } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

type Kind = 'Worker' | 'BatchWorker';
type AnyWorker = Worker | BatchWorker;

/** A worker of either kind whose processor runs `each` for every job. */
function workerOf(
  kind: Kind,
  queue: string,
  each: (job: Job) => Promise<unknown>,
  opts: Partial<WorkerOptions> = {},
): AnyWorker {
  const options = { connection: redisOptions(), ...opts };
  const worker =
    kind === 'Worker'
      ? new Worker(queue, each, options)
      : new BatchWorker(queue, (jobs: Job[]) => Promise.all(jobs.map(each)), options);
  return track(worker);
}

function newQueue(label: string): Queue {
  return track(new Queue(uniqueQueueName(label), { connection: redisOptions() }));
}

function once(worker: AnyWorker, event: string): Promise<unknown[]> {
  return new Promise((resolve) => worker.once(event, (...args: unknown[]) => resolve(args)));
}

describe('Worker and BatchWorker', () => {
  it('are separate classes: a BatchWorker is not a Worker', () => {
    const opts = { connection: { ...redisOptions(), lazyConnect: true }, autorun: false };
    const batch = track(new BatchWorker(uniqueQueueName('kinds'), async () => [], opts));
    const single = track(new Worker(uniqueQueueName('kinds'), async () => 1, opts));
    expect(batch).not.toBeInstanceOf(Worker);
    expect(single).not.toBeInstanceOf(BatchWorker);
    expect(Object.getPrototypeOf(BatchWorker)).toBe(Object.getPrototypeOf(Worker));
  });

  describe.each<Kind>(['Worker', 'BatchWorker'])('%s lifecycle', (kind) => {
    it('ready, run, pause, resume, close and their events', async () => {
      const queue = newQueue(`life-${kind}`);
      const done: string[] = [];
      const worker = workerOf(kind, queue.name, async (job) => done.push(job.id), {
        autorun: false,
      });
      const events: string[] = [];
      for (const event of ['ready', 'paused', 'resumed', 'closing', 'closed', 'drained']) {
        worker.on(event, () => events.push(event));
      }
      await once(worker, 'ready');
      expect(worker.isRunning()).toBe(false);
      await queue.add('a', {});
      await sleep(100);
      expect(done).toEqual([]);

      const running = worker.run();
      expect(worker.isRunning()).toBe(true);
      await expect(worker.run()).rejects.toBeInstanceOf(ValidationError);
      await waitFor(() => (done.length === 1 ? 1 : null));

      await worker.pause();
      expect(worker.isPaused()).toBe(true);
      await queue.add('b', {});
      await sleep(150);
      expect(done).toHaveLength(1);
      await worker.resume();
      expect(worker.isPaused()).toBe(false);
      await waitFor(() => (done.length === 2 ? 1 : null));

      await worker.close();
      await running;
      expect(worker.isRunning()).toBe(false);
      await expect(worker.run()).rejects.toBeInstanceOf(ClosedError);
      expect(events.filter((event) => event !== 'drained')).toEqual([
        'ready',
        'paused',
        'resumed',
        'closing',
        'closed',
      ]);
      expect(await queue.getJobCounts('completed', 'active')).toEqual({ completed: 2, active: 0 });
    });

    it('close(true) stops heartbeat, stalled checks and lock renewal while the processor runs', async () => {
      const queue = newQueue(`services-${kind}`);
      const keys = new QueueKeys('bull', queue.name);
      const redis = track(rawClient());
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let returned = false;
      const worker = workerOf(
        kind,
        queue.name,
        // Ignores the worker's abort: still running after close(true).
        async () => {
          await held;
          returned = true;
          return 'late';
        },
        { heartbeatInterval: 50, stalledInterval: 100, lockDuration: 400 },
      );
      worker.on('error', () => undefined);
      const job = await queue.add('slow', {});
      const lockKey = `${keys.base}${job.id}:lock`;
      const record = workerRecordKey(keys, worker.id);
      await waitFor(async () => ((await redis.exists(record)) === 1 ? 1 : null));
      await waitFor(async () => ((await redis.exists(keys.stalledCheck)) === 1 ? 1 : null));
      // Renewed: still locked well past lockDuration.
      await sleep(600);
      expect(await redis.exists(lockKey)).toBe(1);

      await worker.close(true);
      expect(returned).toBe(false);
      expect(await redis.exists(record)).toBe(0);
      expect(await redis.zscore(workersIndexKey(keys), worker.id)).toBeNull();
      await redis.del(keys.stalledCheck);

      // Several heartbeat, stalled-check and renewal periods later, none of them ran.
      await sleep(700);
      expect(await redis.exists(record)).toBe(0);
      expect(await redis.exists(keys.stalledCheck)).toBe(0);
      expect(await redis.exists(lockKey)).toBe(0);
      expect(await redis.lrange(keys.active, 0, -1)).toEqual([job.id]);
      expect(returned).toBe(false);
      release();
    });
  });

  it('a service that fails to start closes the worker and stops the ones started before it', async () => {
    const queue = newQueue('broken-service');
    const keys = new QueueKeys('bull', queue.name);
    const redis = track(rawClient());

    class WorkerWithBrokenService extends Worker {
      constructor(name: string, opts: WorkerOptions) {
        super(name, async () => 'never', opts);
        this.services.add({
          name: 'broken',
          start: () => {
            throw new Error('cannot start');
          },
          stop: async () => undefined,
        });
      }
    }
    const worker = track(
      new WorkerWithBrokenService(queue.name, {
        connection: redisOptions(),
        autorun: false,
        heartbeatInterval: 50,
        stalledInterval: 100,
      }),
    );
    const closed = once(worker, 'closed');
    await queue.add('waits', {});

    const failure = await worker.run().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(WorkerServiceStartError);
    expect(failure).toMatchObject({ service: 'broken' });
    await closed;
    expect(worker.isRunning()).toBe(false);

    // The heartbeat and stalled checker started before it are stopped: nothing writes again.
    await redis.del(keys.stalledCheck);
    await sleep(400);
    expect(await redis.exists(workerRecordKey(keys, worker.id))).toBe(0);
    expect(await redis.exists(keys.stalledCheck)).toBe(0);
    expect(await queue.getJobCounts('waiting', 'active')).toEqual({ waiting: 1, active: 0 });
  });
});
