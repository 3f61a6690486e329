/**
 * Worker.closeGracefully(timeoutMs): jobs that finish before the deadline are counted; the rest
 * go back to wait, lock released and no attempt used, so nothing is left for the stalled checker.
 * For in-process processors and for sandboxed ones (child processes and worker threads).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Queue, ValidationError, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

function fixture(file: string): string {
  return fileURLToPath(new URL(`../helpers/sandbox-processors/${file}`, import.meta.url));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Asserts the job is back in wait exactly as if it had never been taken: not active, no lock,
 * not in the stalled set, no attempt counted. Then a fresh worker with a fast stalled checker
 * runs it to completion without ever reporting a stall.
 */
async function expectReturnedToWait(name: string, jobId: string): Promise<void> {
  const redis = track(rawClient());
  const queue = track(new Queue(name, { connection: redisOptions() }));
  expect(await queue.getJobState(jobId)).toBe('waiting');
  expect(await redis.lrange(`bull:${name}:wait`, 0, -1)).toContain(jobId);
  expect(await redis.llen(`bull:${name}:active`)).toBe(0);
  expect(await redis.exists(`bull:${name}:${jobId}:lock`)).toBe(0);
  expect(await redis.sismember(`bull:${name}:stalled`, jobId)).toBe(0);
  const hash = await redis.hgetall(`bull:${name}:${jobId}`);
  expect(hash.atm).toBeUndefined();
  expect(hash.failedReason).toBeUndefined();

  const stalled: string[] = [];
  const next = track(
    new Worker(name, async () => 'ran again', {
      connection: redisOptions(),
      stalledInterval: 150,
    }),
  );
  next.on('stalled', (id: string) => stalled.push(id));
  await waitFor(async () => (await redis.zscore(`bull:${name}:completed`, jobId)) !== null);
  // Two more stalled-check rounds: still nothing.
  await sleep(400);
  expect(stalled).toEqual([]);
  const after = await redis.hgetall(`bull:${name}:${jobId}`);
  expect(after.returnvalue).toBe('"ran again"');
  expect(after.stc).toBeUndefined();
  expect(after.atm).toBe('1');
  const events = await redis.xrange(`bull:${name}:events`, '-', '+');
  expect(events.some(([, fields]) => fields[1] === 'stalled')).toBe(false);
}

describe('closeGracefully with an in-process processor', () => {
  it('lets a job that finishes before the deadline complete (completedInTime)', async () => {
    const name = uniqueQueueName('cg-fast');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('fast', {});
    const started = deferred();
    const worker = track(
      new Worker(
        name,
        async () => {
          started.resolve();
          await sleep(300);
          return 'done';
        },
        { connection: redisOptions() },
      ),
    );
    await started.promise;
    const later = await queue.add('later', {});

    const begun = Date.now();
    const report = await worker.closeGracefully(10_000);
    expect(Date.now() - begun).toBeLessThan(3_000);
    expect(report).toEqual({ completedInTime: 1, returnedToWait: [] });
    expect(await redis.hget(`bull:${name}:${job.id}`, 'returnvalue')).toBe('"done"');
    // Nothing new was taken.
    expect(await queue.getJobState(later.id)).toBe('waiting');
    expect(worker.isRunning()).toBe(false);
  });

  it('gives a job slower than the deadline back to wait; its late result changes nothing', async () => {
    const name = uniqueQueueName('cg-slow');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('slow', {}, { attempts: 3 });
    const started = deferred<AbortSignal | undefined>();
    const release = deferred();
    const worker = track(
      new Worker(
        name,
        async (_job, _token, signal) => {
          started.resolve(signal);
          // Ignores the abort signal on purpose.
          await release.promise;
          return 'too late';
        },
        { connection: redisOptions(), stalledInterval: 150 },
      ),
    );
    const errors: unknown[] = [];
    const outcomes: string[] = [];
    worker.on('error', (error) => errors.push(error));
    worker.on('completed', (done: Job) => outcomes.push(`completed ${done.id}`));
    worker.on('failed', (failed: Job) => outcomes.push(`failed ${failed.id}`));
    worker.on('lockRenewalFailed', (ids: string[]) => outcomes.push(`lock lost ${ids.join()}`));
    const signal = await started.promise;

    const begun = Date.now();
    const report = await worker.closeGracefully(300);
    const took = Date.now() - begun;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2_000);
    expect(report).toEqual({ completedInTime: 0, returnedToWait: [job.id] });
    expect(signal?.aborted).toBe(true);

    // The processor returns long after: nothing is written, no event, no error.
    release.resolve();
    await sleep(200);
    expect(await redis.hget(`bull:${name}:${job.id}`, 'returnvalue')).toBeNull();
    expect(outcomes).toEqual([]);
    expect(errors).toEqual([]);
    await expectReturnedToWait(name, job.id);
  });

  it('a processor that honours the abort (rejects) is not failed for it', async () => {
    const name = uniqueQueueName('cg-abort');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('abortable', {});
    const started = deferred();
    const worker = track(
      new Worker(
        name,
        (_job, _token, signal) =>
          new Promise((_resolve, reject) => {
            started.resolve();
            signal?.addEventListener('abort', () => reject(new Error('aborted')));
          }),
        { connection: redisOptions() },
      ),
    );
    const failed: string[] = [];
    worker.on('failed', (failedJob: Job) => failed.push(failedJob.id));
    await started.promise;
    expect(await worker.closeGracefully(100)).toEqual({
      completedInTime: 0,
      returnedToWait: [job.id],
    });
    await sleep(50);
    expect(failed).toEqual([]);
    await expectReturnedToWait(name, job.id);
  });

  it('counts the jobs that finish in time and returns the others (concurrency 2)', async () => {
    const name = uniqueQueueName('cg-mixed');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const fast = await queue.add('fast', {});
    const slow = await queue.add('slow', {});
    const running = new Set<string>();
    const worker = track(
      new Worker(
        name,
        async (running_: Job) => {
          running.add(running_.name);
          await sleep(running_.name === 'fast' ? 200 : 60_000);
          return running_.name;
        },
        { connection: redisOptions(), concurrency: 2 },
      ),
    );
    await waitFor(() => running.size === 2);
    const report = await worker.closeGracefully(700);
    expect(report).toEqual({ completedInTime: 1, returnedToWait: [slow.id] });
    expect(await redis.hget(`bull:${name}:${fast.id}`, 'returnvalue')).toBe('"fast"');
    await expectReturnedToWait(name, slow.id);
  });

  it('a second call brings the deadline forward and resolves with the same report', async () => {
    const name = uniqueQueueName('cg-hurry');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('slow', {});
    const started = deferred();
    const worker = track(
      new Worker(
        name,
        async () => {
          started.resolve();
          await sleep(60_000);
        },
        { connection: redisOptions() },
      ),
    );
    await started.promise;
    const begun = Date.now();
    const first = worker.closeGracefully(60_000);
    await sleep(100);
    const second = worker.closeGracefully(0);
    const [a, b] = await Promise.all([first, second]);
    expect(Date.now() - begun).toBeLessThan(2_000);
    expect(a).toEqual({ completedInTime: 0, returnedToWait: [job.id] });
    expect(b).toBe(a);
    // A longer deadline later does not push it back (it has passed anyway): same report.
    expect(await worker.closeGracefully(60_000)).toBe(a);
  });

  it('on an idle worker resolves at once with an empty report', async () => {
    const name = uniqueQueueName('cg-idle');
    const worker = track(new Worker(name, async () => 'x', { connection: redisOptions() }));
    await worker.waitUntilReady();
    const begun = Date.now();
    expect(await worker.closeGracefully(30_000)).toEqual({
      completedInTime: 0,
      returnedToWait: [],
    });
    expect(Date.now() - begun).toBeLessThan(2_000);
  });

  it('refuses a timeout that is not a number of ms, 0 or more', async () => {
    const worker = track(
      new Worker(uniqueQueueName('cg-bad'), async () => 'x', {
        connection: redisOptions(),
        autorun: false,
      }),
    );
    await expect(worker.closeGracefully(-1)).rejects.toThrow(ValidationError);
    await expect(worker.closeGracefully(Number.NaN)).rejects.toThrow(ValidationError);
  });
});

describe.each<'process' | 'thread'>(['process', 'thread'])(
  'closeGracefully with a sandboxed processor (%s)',
  (mode) => {
    const options = () => ({ connection: redisOptions(), useWorkerThreads: mode === 'thread' });

    it('lets a job that finishes before the deadline complete', async () => {
      const name = uniqueQueueName(`cg-sb-fast-${mode}`);
      const redis = track(rawClient());
      const queue = track(new Queue(name, { connection: redisOptions() }));
      const job = await queue.add('fast', { ms: 300 });
      const worker = track(new Worker(name, fixture('hangs.ts'), options()));
      await waitFor(() => redis.hget(`bull:${name}:${job.id}`, 'progress'), 15_000);

      const report = await worker.closeGracefully(10_000);
      expect(report).toEqual({ completedInTime: 1, returnedToWait: [] });
      expect(await queue.getJobState(job.id)).toBe('completed');
    });

    it('gives a job slower than the deadline back to wait and stops its child', async () => {
      const name = uniqueQueueName(`cg-sb-slow-${mode}`);
      const redis = track(rawClient());
      const queue = track(new Queue(name, { connection: redisOptions() }));
      const job = await queue.add('slow', {});
      const worker = track(new Worker(name, fixture('hangs.ts'), options()));
      const outcomes: string[] = [];
      worker.on('failed', (failed: Job, error: Error) => outcomes.push(error.message));
      worker.on('error', (error: Error) => outcomes.push(`error ${error.message}`));
      const progress = await waitFor(
        () => redis.hget(`bull:${name}:${job.id}`, 'progress'),
        15_000,
      );
      const { pid } = JSON.parse(progress!) as { pid: number };

      const report = await worker.closeGracefully(300);
      expect(report).toEqual({ completedInTime: 0, returnedToWait: [job.id] });
      if (mode === 'process') expect(isAlive(pid)).toBe(false);
      expect(outcomes).toEqual([]);
      await expectReturnedToWait(name, job.id);
    });
  },
);
