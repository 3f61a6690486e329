/**
 * How a Worker's slot runs a job (engine/worker/slot-loop.ts, single-job-strategy.ts): the slot
 * chains `then`s on the processor's promise instead of keeping async frames suspended, so these
 * check what that chain must still do: take a processor's plain value or synchronous throw,
 * free the slot for the next job, give every running job its own signal (the same one from the
 * `active` event to the processor's end), and forget the job once its outcome is written.
 */
import { describe, expect, it } from 'vitest';
import { Job, Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

describe('worker slots', () => {
  it('takes a plain return value and a synchronous throw, and frees the slot after each', async () => {
    const name = uniqueQueueName('slots-sync');
    const queue = track(new Queue(name, connection()));
    const worker = track(
      new Worker(
        name,
        // Not async: returns a value or throws before any promise exists.
        ((job: Job<{ fail: boolean }>) => {
          if (job.data.fail) throw new Error('thrown synchronously');
          return { ok: job.id };
        }) as unknown as (job: Job) => Promise<unknown>,
        { ...connection(), concurrency: 1 },
      ),
    );
    const failed: string[] = [];
    const completed: unknown[] = [];
    worker.on('failed', (_job, error: Error) => failed.push(error.message));
    worker.on('completed', (_job, result) => completed.push(result));
    const first = await queue.add('x', { fail: true });
    const second = await queue.add('x', { fail: false });
    await waitFor(() => failed.length === 1 && completed.length === 1);
    expect(failed).toEqual(['thrown synchronously']);
    expect(completed).toEqual([{ ok: second.id }]);
    expect(await queue.getJobState(first.id)).toBe('failed');
    expect((await queue.getJob(second.id))!.returnvalue).toEqual({ ok: second.id });
  });

  it("gives a processor that takes a signal the one job.signal had in the 'active' event", async () => {
    const name = uniqueQueueName('slots-active-signal');
    const queue = track(new Queue(name, connection()));
    const fromActive = new Map<string, AbortSignal | undefined>();
    const same: boolean[] = [];
    const worker = track(
      new Worker(
        name,
        (job: Job, _token?: string, signal?: AbortSignal) =>
          new Promise((_resolve, reject) => {
            same.push(fromActive.get(job.id) === signal && job.signal === signal);
            signal!.addEventListener('abort', () => reject(new Error(String(signal!.reason))));
          }),
        connection(),
      ),
    );
    worker.on('active', (job: Job) => fromActive.set(job.id, job.signal));
    const failed: string[] = [];
    worker.on('failed', (_job, error: Error) => failed.push(error.message));
    const job = await queue.add('x', {});
    await waitFor(() => same.length === 1);
    expect(same).toEqual([true]);
    expect(worker.cancelJob(job.id, 'stop')).toBe(true);
    await waitFor(() => failed.length === 1);
    expect(failed).toEqual(['stop']);
  });

  it('keeps one signal per running job among many, each cancellable alone, none after', async () => {
    const name = uniqueQueueName('slots-many');
    const queue = track(new Queue(name, connection()));
    const count = 200;
    const running: Job[] = [];
    const signals = new Set<AbortSignal>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = track(
      new Worker(
        name,
        // One parameter: job.signal is made on first read, and is the same on every read.
        async (job: Job) => {
          running.push(job);
          const signal = job.signal!;
          signals.add(signal);
          const cancelled = new Promise<never>((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(new Error('cancelled'))),
          );
          await Promise.race([gate, cancelled]);
          expect(job.signal).toBe(signal);
          return job.data;
        },
        { ...connection(), concurrency: count },
      ),
    );
    const failed: string[] = [];
    let completed = 0;
    worker.on('failed', (job) => failed.push(job!.id));
    worker.on('completed', () => completed++);
    await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'x', data: { i } })));
    await waitFor(() => running.length === count);
    expect(signals.size).toBe(count);
    const victim = running[17]!;
    expect(worker.cancelJob(victim.id)).toBe(true);
    await waitFor(() => failed.length === 1);
    expect(failed).toEqual([victim.id]);
    release();
    await waitFor(() => completed === count - 1);
    // Done with: no signal on the jobs any more, nothing left to cancel.
    expect(running.every((job) => job.signal === undefined)).toBe(true);
    expect(worker.cancelJob(running[0]!.id)).toBe(false);
    expect(await queue.getJobCounts('completed', 'failed', 'active')).toEqual({
      completed: count - 1,
      failed: 1,
      active: 0,
    });
  });

  it('gives processors the names and options stored, short keys decoded, each job its own', async () => {
    const name = uniqueQueueName('slots-fields');
    const queue = track(new Queue(name, connection()));
    const longName = 'n'.repeat(100);
    await queue.add('alpha', { i: 0 }, { attempts: 3, keepLogs: 5, backoff: 10 });
    await queue.add('alpha', { i: 1 }, { deduplication: { id: 'd1' } });
    await queue.add(longName, { i: 2 });
    const seen: Job[] = [];
    const worker = track(
      new Worker(name, async (job: Job) => void seen.push(job), {
        ...connection(),
        concurrency: 3,
      }),
    );
    await waitFor(() => seen.length === 3);
    await worker.close();
    const byIndex = [...seen].sort((a, b) => a.data.i - b.data.i);
    expect(byIndex.map((job) => job.name)).toEqual(['alpha', 'alpha', longName]);
    expect(byIndex[0]!.opts).toMatchObject({ attempts: 3, keepLogs: 5 });
    expect(byIndex[0]!.opts).not.toHaveProperty('kl');
    expect(byIndex[1]!.opts).toMatchObject({ deduplication: { id: 'd1' } });
    expect(byIndex[1]!.opts).not.toHaveProperty('de');
    // The options a Queue reads back are the same, and not the same object as a worker's.
    for (const job of byIndex) {
      const read = (await queue.getJob(job.id))!;
      expect(read.opts).toEqual(job.opts);
      expect(read.opts).not.toBe(job.opts);
    }
    byIndex[0]!.opts.attempts = 9;
    expect(byIndex[2]!.opts.attempts).not.toBe(9);
  });

  it('frees the slot of a job whose stored hash cannot be read into a Job, and says why', async () => {
    const name = uniqueQueueName('slots-unreadable');
    const queue = track(new Queue(name, connection()));
    const redis = track(rawClient());
    const bad = await queue.add('x', { i: 0 });
    // `opts` that is JSON but not an object: building the Job throws.
    await redis.hset(`bull:${name}:${bad.id}`, 'opts', 'null');
    const good = await queue.add('x', { i: 1 });
    const errors: Error[] = [];
    const completed: string[] = [];
    const worker = track(
      new Worker(name, async (job: Job) => job.id, { ...connection(), concurrency: 1 }),
    );
    worker.on('error', (error) => errors.push(error));
    worker.on('completed', (job) => completed.push(job.id));
    await waitFor(() => completed.length === 1);
    expect(completed).toEqual([good.id]);
    expect(errors.length).toBeGreaterThan(0);
  });

  it("finds job.signal through the worker only for the running job's own fetch", async () => {
    const name = uniqueQueueName('slots-signal-scope');
    const queue = track(new Queue(name, connection()));
    const checks: (AbortSignal | undefined)[][] = [];
    const worker: Worker = track(
      new Worker(
        name,
        async (job: Job) => {
          const same = (await Job.fromId(worker, job.id))!;
          const untokened = same.signal;
          same.token = job.token;
          checks.push([job.signal, untokened, same.signal, (await queue.getJob(job.id))!.signal]);
        },
        connection(),
      ),
    );
    await queue.add('x', {});
    await waitFor(() => checks.length === 1);
    const [own, untokened, tokened, fromQueue] = checks[0]!;
    expect(own).toBeInstanceOf(AbortSignal);
    expect(untokened).toBeUndefined();
    expect(tokened).toBe(own);
    expect(fromQueue).toBeUndefined();
  });
});
