/**
 * Sandboxed processors, in child processes and in worker threads: the same behaviour is asked
 * of both. The fixture modules (test/helpers/sandbox-processors) are TypeScript, loaded in the
 * children through tsx.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  Queue,
  SandboxLoadError,
  ValidationError,
  Worker,
  type Job,
  type WorkerOptions,
} from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function fixture(file: string): string {
  return fileURLToPath(new URL(`../helpers/sandbox-processors/${file}`, import.meta.url));
}

type Mode = 'process' | 'thread';

function sandboxed(
  name: string,
  file: string,
  mode: Mode,
  opts: Partial<WorkerOptions> = {},
): Worker {
  const worker = new Worker(name, fixture(file), {
    connection: redisOptions(),
    useWorkerThreads: mode === 'thread',
    ...opts,
  });
  return track(worker);
}

async function finished(name: string, jobId: string, timeoutMs = 15_000) {
  const redis = track(rawClient());
  await waitFor(async () => {
    const [completed, failed] = await Promise.all([
      redis.zscore(`bull:${name}:completed`, jobId),
      redis.zscore(`bull:${name}:failed`, jobId),
    ]);
    return completed !== null || failed !== null;
  }, timeoutMs);
  return redis.hgetall(`bull:${name}:${jobId}`);
}

interface Report {
  pid: number;
  isMainThread: boolean;
  threadId: number;
  id: string;
  name: string;
  queueName: string;
  attemptsMade: number;
  attemptsStarted: number;
  n: number;
  progress: unknown;
  logCount?: number;
}

describe.each<Mode>(['process', 'thread'])('sandboxed processor (%s)', (mode) => {
  it('completes jobs with their return values, reusing one child', async () => {
    const name = uniqueQueueName(`sb-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const jobs = [
      await queue.add('first', { n: 1 }),
      await queue.add('second', { n: 2 }),
      await queue.add('third', { n: 3 }),
    ];
    const completed: Report[] = [];
    const worker = sandboxed(name, 'report.ts', mode);
    worker.on('completed', (_job: Job, result: Report) => completed.push(result));

    const reports: Report[] = [];
    for (const job of jobs) {
      const hash = await finished(name, job.id);
      expect(hash.finishedOn).toBeDefined();
      reports.push(JSON.parse(hash.returnvalue!) as Report);
    }
    expect(reports.map((r) => [r.id, r.name, r.n, r.queueName])).toEqual([
      [jobs[0]!.id, 'first', 1, name],
      [jobs[1]!.id, 'second', 2, name],
      [jobs[2]!.id, 'third', 3, name],
    ]);
    expect(reports.every((r) => r.attemptsMade === 0 && r.attemptsStarted === 1)).toBe(true);
    // The 'completed' event carries the value as the child returned it.
    await waitFor(() => completed.length === 3);
    expect(completed.map((r) => r.n)).toEqual([1, 2, 3]);

    const [first] = reports;
    if (mode === 'process') {
      expect(first!.pid).not.toBe(process.pid);
      expect(new Set(reports.map((r) => r.pid)).size).toBe(1);
    } else {
      expect(first!.isMainThread).toBe(false);
      expect(first!.pid).toBe(process.pid);
      expect(new Set(reports.map((r) => r.threadId)).size).toBe(1);
    }
  });

  it('applies updateProgress, log and updateData on the real job before they resolve', async () => {
    const name = uniqueQueueName(`sb-proxy-${mode}`);
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('steps', { n: 1, steps: true });
    const progress: unknown[] = [];
    const worker = sandboxed(name, 'report.ts', mode);
    worker.on('progress', (_job: Job, value: unknown) => progress.push(value));

    const hash = await finished(name, job.id);
    expect(hash.progress).toBe('{"done":true}');
    expect(JSON.parse(hash.data!)).toEqual({ n: 101, steps: true });
    expect(await redis.lrange(`bull:${name}:${job.id}:logs`, 0, -1)).toEqual([
      `halfway through ${job.id}`,
    ]);
    const report = JSON.parse(hash.returnvalue!) as Report;
    // The child's job saw its own updates, and log() answered with the parent's line count.
    expect(report.n).toBe(101);
    expect(report.progress).toEqual({ done: true });
    expect(report.logCount).toBe(1);
    // The Worker emitted local progress events, as for an in-process processor.
    expect(progress).toEqual([50, { done: true }]);
  });

  it('a job method the parent refuses rejects in the child (the refusal travels back)', async () => {
    const name = uniqueQueueName(`sb-refuse-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('bad', { n: 1, badProgress: true });
    sandboxed(name, 'report.ts', mode);
    const hash = await finished(name, job.id);
    expect(hash.failedReason).toBe('progress must be a number or an object');
    expect(hash.progress).toBeUndefined();
  });

  it('a thrown error fails the job with its message and stack, retried per attempts', async () => {
    const name = uniqueQueueName(`sb-throw-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('t', {}, { attempts: 2 });
    const failures: string[] = [];
    const worker = sandboxed(name, 'throws.ts', mode);
    worker.on('failed', (_job: Job, error: Error) =>
      failures.push(`${error.name}: ${error.message}`),
    );

    const hash = await finished(name, job.id);
    expect(hash.failedReason).toBe('boom on attempt 2');
    expect(hash.atm).toBe('2');
    const stacktrace = JSON.parse(hash.stacktrace!) as string[];
    expect(stacktrace).toHaveLength(2);
    expect(stacktrace[0]).toMatch(/^Error: boom on attempt 1\n/);
    // The stack is the child's: it names the processor module.
    expect(stacktrace[1]).toContain('throws.ts');
    expect(failures).toEqual(['Error: boom on attempt 1', 'Error: boom on attempt 2']);
  });

  it('an UnrecoverableError thrown in the child is not retried', async () => {
    const name = uniqueQueueName(`sb-unrec-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('u', { unrecoverable: true }, { attempts: 5 });
    sandboxed(name, 'throws.ts', mode);
    const hash = await finished(name, job.id);
    expect(hash.failedReason).toBe('give up at once');
    expect(hash.atm).toBe('1');
    expect(JSON.parse(hash.stacktrace!)[0]).toMatch(/^UnrecoverableError: give up at once/);
  });

  it('process.exit(3) fails the job with the exit code, and the next job runs in a new child', async () => {
    const name = uniqueQueueName(`sb-exit-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const before = await queue.add('before', {});
    const exiting = await queue.add('exit', { exitCode: 3 });
    const after = await queue.add('after', {});
    const worker = sandboxed(name, 'exits.ts', mode);
    const errors: unknown[] = [];
    worker.on('error', (error) => errors.push(error));

    const first = JSON.parse((await finished(name, before.id)).returnvalue!) as Report;
    const crashed = await finished(name, exiting.id);
    expect(crashed.failedReason).toBe('Unexpected exit code: 3 signal: null');
    expect(JSON.parse(crashed.stacktrace!)[0]).toMatch(/^SandboxCrashError: /);
    const next = JSON.parse((await finished(name, after.id)).returnvalue!) as Report;
    if (mode === 'process') expect(next.pid).not.toBe(first.pid);
    else expect(next.threadId).not.toBe(first.threadId);
    // A crash is the job's failure, not a worker error.
    expect(errors).toEqual([]);
  });

  it('an uncaught exception in the child fails the job with that message', async () => {
    const name = uniqueQueueName(`sb-uncaught-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('x', { kind: 'exception' });
    sandboxed(name, 'uncaught.ts', mode);
    const hash = await finished(name, job.id);
    expect(hash.failedReason).toBe('Sandboxed processor crashed: thrown in a timer');
    expect(JSON.parse(hash.stacktrace!)[0]).toContain('uncaught.ts');
  });

  it('an unhandled rejection in the child fails the job with that message', async () => {
    const name = uniqueQueueName(`sb-rejection-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('r', { kind: 'rejection' }, { attempts: 2 });
    sandboxed(name, 'uncaught.ts', mode);
    const hash = await finished(name, job.id);
    expect(hash.failedReason).toBe('Sandboxed processor crashed: rejected and never handled');
    // A crash is an ordinary failed attempt: retried while attempts remain.
    expect(hash.atm).toBe('2');
  });

  it('concurrency N runs N jobs at once, each in its own child, and no more', async () => {
    const name = uniqueQueueName(`sb-conc-${mode}`);
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    // Jobs that never end: all three must be running at the same time to publish progress.
    const running = await Promise.all([1, 2, 3].map((n) => queue.add('hang', { n })));
    const extra = await queue.add('extra', { n: 4 });
    const worker = sandboxed(name, 'hangs.ts', mode, { concurrency: 3 });
    const progress = await waitFor(async () => {
      const values = await Promise.all(
        running.map((job) => redis.hget(`bull:${name}:${job.id}`, 'progress')),
      );
      return values.every((value) => value !== null) ? (values as string[]) : undefined;
    }, 20_000);
    const children = progress!.map((value) => {
      const where = JSON.parse(value) as { pid: number; threadId: number };
      return mode === 'process' ? where.pid : where.threadId;
    });
    expect(new Set(children).size).toBe(3);
    if (mode === 'process') expect(children).not.toContain(process.pid);
    await sleep(200);
    expect(await queue.getJobState(extra.id)).toBe('waiting');
    expect(await redis.llen(`bull:${name}:active`)).toBe(3);
    await worker.close(true);
  });

  it('loads CommonJS (module.exports = fn) and ES module (.mts) processors, and file URLs', async () => {
    const name = uniqueQueueName(`sb-styles-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const cjs = await queue.add('cjs', { n: 7 });
    sandboxed(name, 'commonjs.cjs', mode);
    expect(JSON.parse((await finished(name, cjs.id)).returnvalue!)).toEqual({
      style: 'commonjs',
      n: 7,
    });

    const esmName = uniqueQueueName(`sb-esm-${mode}`);
    const esmQueue = track(new Queue(esmName, { connection: redisOptions() }));
    const esm = await esmQueue.add('esm', { n: 8 });
    track(
      new Worker(esmName, new URL('../helpers/sandbox-processors/esm.mts', import.meta.url), {
        connection: redisOptions(),
        useWorkerThreads: mode === 'thread',
      }),
    );
    expect(JSON.parse((await finished(esmName, esm.id)).returnvalue!)).toEqual({
      style: 'esm',
      n: 8,
    });
  });

  it('a module without a function default export fails each job, with one error event', async () => {
    const name = uniqueQueueName(`sb-nodefault-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const first = await queue.add('a', {});
    const second = await queue.add('b', {});
    const worker = sandboxed(name, 'no-default.ts', mode);
    const errors: Error[] = [];
    worker.on('error', (error: Error) => errors.push(error));
    for (const job of [first, second]) {
      const hash = await finished(name, job.id);
      expect(hash.failedReason).toBe(
        `No function is exported in processor file ${fixture('no-default.ts')} ` +
          '(export default async (job) => ...)',
      );
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SandboxLoadError);
  });

  it('a module that throws while loading fails the job with the reason', async () => {
    const name = uniqueQueueName(`sb-broken-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('a', {});
    const worker = sandboxed(name, 'broken.ts', mode);
    worker.on('error', () => undefined);
    const hash = await finished(name, job.id);
    expect(hash.failedReason).toBe(
      `Sandboxed processor ${fixture('broken.ts')} could not be loaded: this module refuses to load`,
    );
  });
});

describe('sandboxed processor validation', () => {
  it('refuses a file that does not exist, or a URL that is not file:, at construction', () => {
    const missing = fixture('does-not-exist.ts');
    expect(() => new Worker('q', missing, { connection: redisOptions() })).toThrow(
      new ValidationError(`Sandboxed processor file not found: ${missing}`),
    );
    expect(
      () => new Worker('q', new URL('https://example.com/p.ts'), { connection: redisOptions() }),
    ).toThrow(ValidationError);
    expect(
      () =>
        new Worker('q', fixture('report.ts'), {
          connection: redisOptions(),
          useWorkerThreads: 'yes' as unknown as boolean,
        }),
    ).toThrow(new ValidationError('useWorkerThreads must be a boolean'));
    expect(() => new Worker('q', 42 as unknown as string, { connection: redisOptions() })).toThrow(
      ValidationError,
    );
  });

  it('a relative path is resolved against the working directory', async () => {
    const name = uniqueQueueName('sb-relative');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('r', { n: 5 });
    track(
      new Worker(name, 'test/helpers/sandbox-processors/report.ts', {
        connection: redisOptions(),
      }),
    );
    expect(JSON.parse((await finished(name, job.id)).returnvalue!).n).toBe(5);
  });
});
