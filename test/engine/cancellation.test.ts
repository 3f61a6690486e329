/**
 * worker.cancelJob / cancelAllJobs and the processor's AbortSignal, run side by side with the
 * real bullmq 6.7.0 worker so the job's fate after an abort is checked against it.
 */
import { Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

type Side = 'bullmq' | 'oxmq';
const SIDES: Side[] = ['bullmq', 'oxmq'];

interface CancellableWorker {
  cancelJob(jobId: string, reason?: string): boolean;
  cancelAllJobs(reason?: string): void;
  on(event: 'active', listener: (job: { id?: string }) => void): unknown;
}

type Processor = (job: { id?: string }, token?: string, signal?: AbortSignal) => Promise<unknown>;

function makeWorker(side: Side, name: string, processor: Processor, concurrency = 1) {
  const opts = { ...connection(), concurrency };
  return side === 'bullmq'
    ? (track(new BullWorker(name, processor, opts)) as unknown as CancellableWorker)
    : (track(new Worker(name, processor, opts)) as unknown as CancellableWorker);
}

/** Rejects with the abort reason once the signal fires; never settles otherwise. */
const untilAborted: Processor = (_job, _token, signal) =>
  new Promise((_resolve, reject) => {
    signal!.addEventListener('abort', () =>
      reject(new Error(`cancelled: ${String(signal!.reason)}`)),
    );
  });

function activeIds(worker: CancellableWorker): string[] {
  const ids: string[] = [];
  worker.on('active', (job) => ids.push(job.id!));
  return ids;
}

describe.each(SIDES)('cancellation (%s)', (side) => {
  it('an aborted processor that rejects fails the attempt with its error; retried while attempts remain', async () => {
    const name = uniqueQueueName(`cancel-${side}`);
    const queue = track(new Queue(name, connection()));
    const redis = track(rawClient());
    const job = await queue.add('x', {}, { attempts: 2 });
    const worker = makeWorker(side, name, untilAborted);
    const active = activeIds(worker);

    await waitFor(() => active.length === 1);
    expect(worker.cancelJob(job.id, 'by user')).toBe(true);
    // The first cancellation is a failed attempt: the job runs again.
    await waitFor(() => active.length === 2);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'failedReason')).toBe('cancelled: by user');
    worker.cancelAllJobs('all');
    await waitFor(async () => (await queue.getJobState(job.id)) === 'failed');
    const hash = await redis.hgetall(`bull:${name}:${job.id}`);
    expect(hash.failedReason).toBe('cancelled: all');
    expect(hash.atm).toBe('2');
  });

  it('cancelJob is false for a job not running here or a processor without a signal parameter', async () => {
    const name = uniqueQueueName(`cancel-nosig-${side}`);
    const queue = track(new Queue(name, connection()));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = makeWorker(side, name, () => released);
    const active = activeIds(worker);
    const job = await queue.add('x', {});
    await waitFor(() => active.length === 1);
    expect(worker.cancelJob(job.id)).toBe(false);
    expect(worker.cancelJob('not-running')).toBe(false);
    release();
    await waitFor(async () => (await queue.getJobState(job.id)) === 'completed');
  });

  it('a processor that ignores the abort completes its job', async () => {
    const name = uniqueQueueName(`cancel-ignored-${side}`);
    const queue = track(new Queue(name, connection()));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let seenAborted: boolean | undefined;
    const worker = makeWorker(side, name, async (_job, _token, signal) => {
      await released;
      seenAborted = signal?.aborted;
      return 'finished anyway';
    });
    const active = activeIds(worker);
    const job = await queue.add('x', {});
    await waitFor(() => active.length === 1);
    expect(worker.cancelJob(job.id)).toBe(true);
    release();
    await waitFor(async () => (await queue.getJobState(job.id)) === 'completed');
    expect(seenAborted).toBe(true);
  });
});

describe('cancellation (OxMQ only)', () => {
  it('cancels one job among several running on one worker', async () => {
    const name = uniqueQueueName('cancel-one');
    const queue = track(new Queue(name, connection()));
    const releases = new Map<string, () => void>();
    const worker = makeWorker(
      'oxmq',
      name,
      (job, _token, signal) =>
        new Promise((resolve, reject) => {
          releases.set(job.id!, () => resolve('done'));
          signal!.addEventListener('abort', () => reject(new Error('cancelled')));
        }),
      2,
    );
    const [a, b] = await Promise.all([queue.add('a', {}), queue.add('b', {})]);
    await waitFor(() => releases.size === 2);
    expect(worker.cancelJob(a.id)).toBe(true);
    await waitFor(async () => (await queue.getJobState(a.id)) === 'failed');
    expect(await queue.getJobState(b.id)).toBe('active');
    releases.get(b.id)!();
    await waitFor(async () => (await queue.getJobState(b.id)) === 'completed');
  });
});

describe('cancellation of a sandboxed job', () => {
  it("aborts the signal inside the child; the processor's rejection fails the attempt", async () => {
    const name = uniqueQueueName('cancel-sandbox');
    const queue = track(new Queue(name, connection()));
    const file = fileURLToPath(
      new URL('../helpers/sandbox-processors/cancellable.ts', import.meta.url),
    );
    const worker = track(new Worker(name, file, connection()));
    const failures: Error[] = [];
    worker.on('failed', (_job, error: Error) => failures.push(error));
    const job = await queue.add('x', {});
    // The fixture reports progress once it runs in its child.
    await new Promise<void>((resolve) => worker.once('progress', () => resolve()));
    expect(worker.cancelJob(job.id, 'no longer needed')).toBe(true);
    await waitFor(() => failures.length === 1);
    expect(failures[0]!.message).toBe('cancelled in child: no longer needed, token given');
    expect(await queue.getJobState(job.id)).toBe('failed');
  });
});
