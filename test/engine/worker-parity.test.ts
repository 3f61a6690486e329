/**
 * bullmq 6.7.0's Worker behaviour where OxMQ differed: 'ready' without autorun, lockRenewTime
 * at or past lockDuration, strict options, and a concurrency that can change while running.
 */
import { describe, expect, it } from 'vitest';
import {
  BatchWorker,
  Queue,
  ValidationError,
  Worker,
  type GetNextJobOptions,
  type WorkerListener,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

function refusal(make: () => unknown): ValidationError {
  try {
    const made = make() as { close?: () => Promise<void> };
    void made.close?.();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('worker parity', () => {
  it("emits 'ready' with autorun false, before run()", async () => {
    const worker = track(
      new Worker(uniqueQueueName('ready'), async () => 1, { ...connection(), autorun: false }),
    );
    await new Promise<void>((resolve) => worker.once('ready', () => resolve()));
    expect(worker.isRunning()).toBe(false);
  });

  it('accepts lockRenewTime at or past lockDuration, as bullmq does', () => {
    const worker = track(
      new Worker(uniqueQueueName('renew'), async () => 1, {
        ...connection(),
        autorun: false,
        lockDuration: 1_000,
        lockRenewTime: 1_000,
      }),
    );
    expect(worker).toBeInstanceOf(Worker);
  });

  it('refuses an unknown option, naming it', () => {
    const name = uniqueQueueName('strict');
    const unknown = refusal(
      () => new Worker(name, async () => 1, { ...connection(), concurency: 2 } as never),
    );
    expect(unknown.message).toContain('concurency');
    const nested = refusal(
      () =>
        new Worker(name, async () => 1, {
          ...connection(),
          limiter: { max: 1, duration: 1, groupKey: 'x' },
        } as never),
    );
    expect(nested.message).toContain('limiter.groupKey');
    expect(
      refusal(
        () =>
          new Worker(name, async () => 1, { ...connection(), settings: { backoff: 1 } } as never),
      ).message,
    ).toContain('settings.backoff');
  });

  it('refuses sandbox start options that are not objects', () => {
    const name = uniqueQueueName('fork-options');
    const error = refusal(
      () => new Worker(name, async () => 1, { ...connection(), workerForkOptions: 5 } as never),
    );
    expect(error.message).toBe('workerForkOptions must be an object');
  });

  it('accepts the bullmq options that have nothing to do here, and a BatchWorker its own', async () => {
    const name = uniqueQueueName('accepted');
    track(
      new Worker(name, async () => 1, {
        ...connection(),
        autorun: false,
        blockingConnection: true,
        skipVersionCheck: true,
        skipWaitingForReady: false,
        runRetryDelay: 500,
      }),
    );
    track(
      new BatchWorker(name, async (jobs) => jobs.map(() => null), {
        ...connection(),
        autorun: false,
        batchSize: 5,
        maxBatchBytes: 1000,
      }),
    );
    expect(
      refusal(() => new Worker(name, async () => 1, { ...connection(), batchSize: 5 } as never))
        .message,
    ).toContain('batchSize');
  });

  it("bullmq's small members: qualifiedName, toKey, block bounds, delay", async () => {
    const name = uniqueQueueName('members');
    const worker = track(new Worker(name, async () => 1, { ...connection(), autorun: false }));
    expect(worker.qualifiedName).toBe(`bull:${name}`);
    expect(worker.toKey('wait')).toBe(`bull:${name}:wait`);
    expect(worker.getBackend()).toBe(worker.backend);
    expect(worker.minimumBlockTimeout).toBeLessThan(worker.maximumBlockTimeout);
    const aborter = new AbortController();
    const waiting = worker.delay(undefined, aborter);
    aborter.abort();
    await waiting;
    await worker.delay(1);
    // Async like bullmq's, and typed listeners under bullmq's names.
    await worker.pause(true);
    await expect(worker.resume()).resolves.toBeUndefined();
    const onCompleted: WorkerListener['completed'] = () => undefined;
    worker.on('completed', onCompleted);
    const options: GetNextJobOptions = { block: false };
    expect(await worker.getNextJob('t', options)).toBeUndefined();
  });

  it("emits 'locksRenewed' with the renewed ids", async () => {
    const name = uniqueQueueName('renewed');
    const queue = track(new Queue(name, connection()));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = track(new Worker(name, () => released, { ...connection(), lockDuration: 200 }));
    const job = await queue.add('x', {});
    const renewed = await new Promise<{ count: number; jobIds: string[] }>((resolve) =>
      worker.once('locksRenewed', resolve),
    );
    expect(renewed).toEqual({ count: 1, jobIds: [job.id] });
    release();
  });

  it('concurrency can be raised on a running worker', async () => {
    const name = uniqueQueueName('concurrency');
    const queue = track(new Queue(name, connection()));
    let running = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = track(
      new Worker(
        name,
        async () => {
          running += 1;
          await released;
        },
        connection(),
      ),
    );
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'n', data: { n } })));
    await waitFor(() => running === 1);
    expect(worker.concurrency).toBe(1);
    worker.concurrency = 3;
    await waitFor(() => running === 3);
    release();
    await waitFor(async () => (await queue.getJobCounts('completed')).completed === 3);
    expect(() => {
      worker.concurrency = 0;
    }).toThrow(ValidationError);
  });
});
