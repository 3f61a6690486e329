/**
 * `job.signal`: the attempt's AbortSignal on the Job a processor receives, in-process and in a
 * sandbox child. A processor that watches it (and declares one parameter only) is cancelled by
 * worker.cancelJob and by queue.cancelJob (through the storage, docs/redis-keys.md).
 *
 * The in-process cases are the worker's own logic and run on the memory storage (no Redis, no
 * network round trips to wait for); the sandboxed ones run on Redis, as a team's would.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryStorage, Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });
/** One memory storage per test: the queue, its worker and reads share it. */
const inMemory = () => ({ storage: memoryStorage() });
const heartbeatInterval = 100;

/** A processor of ONE parameter that rejects with the reason once job.signal aborts. */
function watchingJobSignal(seen: Job[]) {
  return (job: Job) =>
    new Promise((_resolve, reject) => {
      seen.push(job);
      const signal = job.signal!;
      signal.addEventListener('abort', () =>
        reject(new Error(`aborted: ${String(signal.reason)}`)),
      );
    });
}

function failuresOf(worker: Worker): Error[] {
  const failures: Error[] = [];
  worker.on('failed', (_job, error: Error) => failures.push(error));
  return failures;
}

describe('job.signal (in-process)', () => {
  it('worker.cancelJob aborts it for a processor that only watches job.signal', async () => {
    const name = uniqueQueueName('jobsig-local');
    const storage = inMemory();
    const queue = track(new Queue(name, storage));
    const seen: Job[] = [];
    const worker = track(new Worker(name, watchingJobSignal(seen), storage));
    const failures = failuresOf(worker);
    const job = await queue.add('x', {});
    await waitFor(() => seen.length === 1);
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(worker.cancelJob(job.id, 'by user')).toBe(true);
    await waitFor(() => failures.length === 1);
    expect(failures[0]!.message).toBe('aborted: by user');
    expect(await queue.getJobState(job.id)).toBe('failed');
    // Outside processing: the processed Job no longer has one, nor does a job a Queue reads.
    expect(seen[0]!.signal).toBeUndefined();
    expect((await queue.getJob(job.id))!.signal).toBeUndefined();
  });

  it('is the same signal as the third argument of a processor that takes one', async () => {
    const name = uniqueQueueName('jobsig-third');
    const storage = inMemory();
    const queue = track(new Queue(name, storage));
    const same: boolean[] = [];
    const worker = track(
      new Worker(
        name,
        async (job: Job, _token?: string, signal?: AbortSignal) => {
          same.push(job.signal === signal && signal !== undefined);
        },
        storage,
      ),
    );
    const done = new Promise((resolve) => worker.once('completed', resolve));
    await queue.add('x', {});
    await done;
    expect(same).toEqual([true]);
  });

  it('queue.cancelJob aborts it through the storage', async () => {
    const name = uniqueQueueName('jobsig-remote');
    const storage = inMemory();
    const queue = track(new Queue(name, storage));
    const seen: Job[] = [];
    const worker = track(
      new Worker(name, watchingJobSignal(seen), { ...storage, heartbeatInterval }),
    );
    const failures = failuresOf(worker);
    const job = await queue.add('x', {});
    await waitFor(() => seen.length === 1);
    expect(await queue.cancelJob(job.id, 'from afar')).toBe('requested');
    await waitFor(() => failures.length === 1);
    // The attempt ends as cancelled; what the processor threw on the abort is the cause.
    expect(failures[0]!.message).toBe('Cancelled: from afar');
    expect((failures[0]!.cause as Error).message).toBe('aborted: from afar');
    expect(await queue.getJobState(job.id)).toBe('failed');
  });
});

describe('job.signal (sandboxed)', () => {
  const file = fileURLToPath(
    new URL('../helpers/sandbox-processors/job-signal.ts', import.meta.url),
  );

  it('is set on the child job; worker.cancelJob aborts it', async () => {
    const name = uniqueQueueName('jobsig-sandbox');
    const queue = track(new Queue(name, connection()));
    const worker = track(new Worker(name, file, connection()));
    const failures = failuresOf(worker);
    const job = await queue.add('x', {});
    await new Promise<void>((resolve) => worker.once('progress', () => resolve()));
    expect(worker.cancelJob(job.id, 'no longer needed')).toBe(true);
    await waitFor(() => failures.length === 1);
    expect(failures[0]!.message).toBe('job.signal aborted in child: no longer needed');
  });

  it('queue.cancelJob aborts it in the child', async () => {
    const name = uniqueQueueName('jobsig-sandbox-remote');
    const queue = track(new Queue(name, connection()));
    const worker = track(new Worker(name, file, { ...connection(), heartbeatInterval }));
    const failures = failuresOf(worker);
    const job = await queue.add('x', {});
    await new Promise<void>((resolve) => worker.once('progress', () => resolve()));
    expect(await queue.cancelJob(job.id, 'from afar')).toBe('requested');
    await waitFor(() => failures.length === 1);
    expect(failures[0]!.message).toBe('Cancelled: from afar');
    expect((failures[0]!.cause as Error).message).toBe('job.signal aborted in child: from afar');
    expect(await queue.getJobState(job.id)).toBe('failed');
  });
});
