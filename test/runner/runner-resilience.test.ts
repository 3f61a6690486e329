/**
 * The real runner process staying up for the queues that work: a sandboxed processor that kills
 * its own process fails its job with the crash reason, a module that does not load is reported
 * (log line and /health) while the other modules run.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, waitFor } from '../helpers/redis';
import { fixture, useRunners, type RunnerProcess } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();

function queueOf(runner: RunnerProcess, name: string): Queue {
  return track(new Queue(name, { connection: redisOptions(), prefix: runner.prefix }));
}

async function finished(queue: Queue, id: string) {
  return waitFor(async () => {
    const job = await queue.getJob(id);
    return job?.finishedOn ? job : null;
  }, 15_000);
}

describe('worker runner: resilience', () => {
  it('a crashing sandboxed processor fails its job with the reason; the runner keeps serving', async () => {
    const runner = startRunner({
      modules: { 'crash.ts': fixture('crash.ts'), 'alpha.ts': fixture('alpha.ts') },
    });
    await runner.ready();
    const crashy = queueOf(runner, 'crashy');
    const alpha = queueOf(runner, 'alpha');

    const crashed = await finished(crashy, (await crashy.add('boom', { crash: true })).id);
    expect(crashed?.failedReason).toBe('Unexpected exit code: 7 signal: null');
    expect(await crashy.getJobState(crashed!.id)).toBe('failed');

    // The same sandboxed queue goes on, in a fresh child, and so does every other queue.
    const after = await finished(crashy, (await crashy.add('fine', { crash: false })).id);
    expect(after?.failedReason).toBeUndefined();
    expect((after?.returnvalue as { pid: number }).pid).not.toBe(runner.pid);
    const echoed = await finished(alpha, (await alpha.add('echo', { text: 'still here' })).id);
    expect(echoed?.returnvalue).toMatchObject({ echoed: 'still here', pid: runner.pid });

    expect(runner.running()).toBe(true);
    expect(await runner.get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('runs a thread-sandboxed processor off the main thread, in the runner process', async () => {
    const runner = startRunner({ modules: { 'threaded.ts': fixture('threaded.ts') } });
    await runner.ready();
    const threaded = queueOf(runner, 'threaded');
    const job = await finished(threaded, (await threaded.add('where', { n: 3 })).id);
    expect(job?.returnvalue).toMatchObject({ pid: runner.pid, isMainThread: false, n: 3 });
  });

  it('runs a batch-mode module as a BatchWorker, failing only the jobs it returns an Error for', async () => {
    const runner = startRunner({
      modules: {
        'batched.ts': fixture('batched.ts'),
        'batch-sandboxed.ts': fixture('batch-sandboxed.ts'),
      },
    });
    await runner.ready();
    const batched = queueOf(runner, 'batched');
    await batched.pause();
    const jobs = await batched.addBulk(
      [1, 2, 3, 4, 5, 6, -7].map((n) => ({ name: 'n', data: { n }, opts: { jobId: `n${n}` } })),
    );
    await batched.resume();
    const results = await Promise.all(jobs.map((job) => finished(batched, job.id)));
    expect(results[0]?.returnvalue).toEqual({ tenfold: 10, batch: 5 });
    expect(results[5]?.returnvalue).toEqual({ tenfold: 60, batch: 2 });
    expect(results[6]?.failedReason).toBe('negative: -7');

    const failed = (await runner.get('/health')).body.failed as { file: string; error: string }[];
    expect(failed).toEqual([
      expect.objectContaining({
        file: 'batch-sandboxed.ts',
        code: 'INVALID_OPTIONS',
        error: expect.stringContaining('batch and sandbox cannot be combined'),
      }),
    ]);
  });

  it('reports modules that do not load, each with its reason, and serves the rest', async () => {
    const runner = startRunner({
      modules: {
        'alpha.ts': fixture('alpha.ts'),
        'no-queue.ts': fixture('no-queue.ts'),
        'unknown-option.ts': fixture('unknown-option.ts'),
        'bad-concurrency.ts': fixture('bad-concurrency.ts'),
        'syntax.ts': 'export const queue = "syntax";\nexport default async function (job {',
        '_helper.ts': 'throw new Error("a helper is never loaded as a processor");',
      },
    });
    await runner.ready();
    const health = await runner.get('/health');
    expect(health.status).toBe(200);
    const failed = health.body.failed as { file: string; code: string; error: string }[];
    // Paths relative to the processors folder, in the file names and in the load errors alike.
    expect(JSON.stringify(failed)).not.toContain(runner.processorsDir);
    const byFile = Object.fromEntries(failed.map((entry) => [entry.file, entry]));
    expect(Object.keys(byFile).sort()).toEqual([
      'bad-concurrency.ts',
      'no-queue.ts',
      'syntax.ts',
      'unknown-option.ts',
    ]);
    expect(byFile['no-queue.ts']).toMatchObject({ code: 'INVALID_EXPORTS' });
    expect(byFile['no-queue.ts']!.error).toContain('export const queue');
    expect(byFile['unknown-option.ts']).toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(byFile['unknown-option.ts']!.error).toContain('options.concurency: unknown option');
    expect(byFile['bad-concurrency.ts']!.error).toContain('options.concurrency');
    expect(byFile['syntax.ts']).toMatchObject({ code: 'IMPORT_FAILED' });
    expect(byFile['syntax.ts']!.error).toMatch(/ syntax\.ts:2:\d+: ERROR/);
    expect(runner.logs).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'processor module failed to load',
        code: 'INVALID_OPTIONS',
      }),
    );

    const alpha = queueOf(runner, 'alpha');
    const echoed = await finished(alpha, (await alpha.add('echo', { text: 'ok' })).id);
    expect(echoed?.returnvalue).toMatchObject({ echoed: 'ok' });
  });
});
