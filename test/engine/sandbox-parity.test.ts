/**
 * Sandboxed processors behave like bullmq's: the processor gets (job, token, signal), the job
 * has the move and children methods, crashes are worded as bullmq words them, output reaches
 * the parent's streams, and the worker's job reflects what the child did.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FlowProducer, Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

function fixture(file: string): string {
  return fileURLToPath(new URL(`../helpers/sandbox-processors/${file}`, import.meta.url));
}

type Mode = 'process' | 'thread';

function sandboxed(name: string, file: string, mode: Mode): Worker {
  return track(
    new Worker(name, fixture(file), {
      connection: redisOptions(),
      useWorkerThreads: mode === 'thread',
    }),
  );
}

/** Resolves with the value of the first completion or the reason of the first failure. */
function outcomeOf(worker: Worker, jobId: string): Promise<{ value?: unknown; failed?: string }> {
  return new Promise((resolve) => {
    worker.on('completed', (job: Job, value: unknown) => {
      if (job.id === jobId) resolve({ value });
    });
    worker.on('failed', (job: Job | undefined, error: Error) => {
      if (job?.id === jobId) resolve({ failed: error.message });
    });
  });
}

describe.each<Mode>(['process', 'thread'])('sandboxed processor parity (%s)', (mode) => {
  it('passes the lock token and an AbortSignal, and the qualified queue name', async () => {
    const name = uniqueQueueName(`sbp-args-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('a', { action: 'arguments' });
    const worker = sandboxed(name, 'parity.ts', mode);
    const tokens: string[] = [];
    worker.on('active', (active: Job) => tokens.push(active.token ?? ''));
    const { value } = await outcomeOf(worker, job.id);
    expect(value).toEqual({
      queueQualifiedName: `bull:${name}`,
      token: tokens[0],
      signalAborted: false,
    });
    expect(tokens[0]).toMatch(/\S/);
  });

  it('moves its job to delayed from the child, then runs it again', async () => {
    const name = uniqueQueueName(`sbp-delay-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('d', { action: 'delay' });
    const worker = sandboxed(name, 'parity.ts', mode);
    const states: string[] = [];
    const watch = setInterval(() => {
      void queue.getJobState(job.id).then((state) => states.push(state));
    }, 20);
    try {
      const { value, failed } = await outcomeOf(worker, job.id);
      expect(failed).toBeUndefined();
      expect(value).toEqual({ delayedOnce: true });
    } finally {
      clearInterval(watch);
    }
    expect(states).toContain('delayed');
    // Two runs, one attempt: postponing is not a failure.
    const stored = await queue.getJob(job.id);
    expect(stored?.attemptsStarted).toBe(2);
    expect(stored?.attemptsMade).toBe(1);
  });

  it("reads its children's values and counts from the child", async () => {
    const name = uniqueQueueName(`sbp-children-${mode}`);
    const flows = track(new FlowProducer({ connection: redisOptions() }));
    track(new Queue(name, { connection: redisOptions() }));
    const worker = sandboxed(name, 'parity.ts', mode);
    const tree = await flows.add({
      name: 'parent',
      queueName: name,
      data: { action: 'children' },
      children: [
        { name: 'c1', queueName: name, data: { action: 'arguments' } },
        { name: 'c2', queueName: name, data: { action: 'arguments' } },
      ],
    });
    const { value } = await outcomeOf(worker, tree.job.id);
    const result = value as {
      values: Record<string, { queueQualifiedName: string }>;
      counts: Record<string, number>;
      ignored: Record<string, string>;
    };
    expect(Object.keys(result.values).sort()).toEqual(
      tree.children!.map((child) => `bull:${name}:${child.job.id}`).sort(),
    );
    expect(result.counts).toEqual({ processed: 2, unprocessed: 0, failed: 0, ignored: 0 });
    expect(result.ignored).toEqual({});
  });

  it("copies the child's stdout and stderr into this process's streams", async () => {
    const name = uniqueQueueName(`sbp-print-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const marker = `marker-${Math.random().toString(36).slice(2)}`;
    const seen: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
    const restore = (['stdout', 'stderr'] as const).map((stream) => {
      const original = process[stream].write;
      process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        seen[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
        return (original as (...args: unknown[]) => boolean).call(process[stream], chunk, ...rest);
      }) as typeof process.stdout.write;
      return () => (process[stream].write = original);
    });
    try {
      const job = await queue.add('p', { action: 'print', marker });
      const worker = sandboxed(name, 'parity.ts', mode);
      expect((await outcomeOf(worker, job.id)).value).toBe('printed');
      await waitFor(async () => seen.stdout.includes(`stdout ${marker}`), 5_000);
      await waitFor(async () => seen.stderr.includes(`stderr ${marker}`), 5_000);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it('starts its children with the given fork or thread options', async () => {
    const name = uniqueQueueName(`sbp-env-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('e', { action: 'env' });
    const env = { ...process.env, OXMQ_PARITY_ENV: `from-${mode}-options` };
    const worker = track(
      new Worker(name, fixture('parity.ts'), {
        connection: redisOptions(),
        useWorkerThreads: mode === 'thread',
        ...(mode === 'thread' ? { workerThreadsOptions: { env } } : { workerForkOptions: { env } }),
      }),
    );
    expect((await outcomeOf(worker, job.id)).value).toBe(`from-${mode}-options`);
  });

  it("gives the worker's job the progress and data the child wrote", async () => {
    const name = uniqueQueueName(`sbp-progress-${mode}`);
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const job = await queue.add('s', { n: 1, steps: true });
    const worker = sandboxed(name, 'report.ts', mode);
    const completed = new Promise<Job>((resolve) => worker.on('completed', resolve));
    const done = await completed;
    expect(done.id).toBe(job.id);
    expect(done.progress).toEqual({ done: true });
    expect(done.data).toEqual({ n: 101, steps: true });
  });
});
