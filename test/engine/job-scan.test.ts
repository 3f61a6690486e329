/**
 * engine/admin/job-scan.ts and job-window.ts on a real Redis: a walk of a whole state, window by
 * window, finds what a filter keeps from either end, reads data only when asked, passes over jobs
 * too large to read, stops when its signal is aborted, and keeps each script call to a window.
 */
import { Queue as BullQueue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { JOB_SCAN_LIMITS, type JobScanOptions, type JobScanStep } from 'oxmq/admin';
import { readJobWindow, scanJobs } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
const client = rawClient();
afterAll(() => client.quit());

async function walk(name: string, opts: JobScanOptions): Promise<JobScanStep[]> {
  const steps: JobScanStep[] = [];
  for await (const step of scanJobs(client, 'bull', name, opts)) steps.push(step);
  return steps;
}

const ids = (steps: JobScanStep[]) => steps.flatMap((step) => step.jobs.map((job) => job.id));

describe('walking a state', () => {
  it('finds the newest job of a bullmq-made list in its first window, the oldest in its last', async () => {
    const name = uniqueQueueName('scan-list');
    const producer = track(new BullQueue(name, { connection: redisOptions() }));
    const total = JOB_SCAN_LIMITS.windowJobs * 2 + 10;
    const added = await producer.addBulk(
      Array.from({ length: total }, (_, i) => ({
        name: 'job',
        data: { user: i === total - 1 ? 'needle-last' : i === 0 ? 'needle-first' : `u${i}` },
      })),
    );
    const needle = { mode: 'text' as const, query: 'needle' };

    const newest = await walk(name, { state: 'waiting', order: 'newest', filter: needle });
    expect(newest).toHaveLength(3);
    expect(newest[0]!.jobs.map((job) => job.id)).toEqual([added[total - 1]!.id]);
    expect(ids(newest)).toEqual([added[total - 1]!.id, added[0]!.id]);
    expect(newest.map((step) => [step.scanned, step.total, step.done])).toEqual([
      [JOB_SCAN_LIMITS.windowJobs, total, false],
      [JOB_SCAN_LIMITS.windowJobs * 2, total, false],
      [total, total, true],
    ]);

    const oldest = await walk(name, { state: 'waiting', order: 'oldest', filter: needle });
    expect(ids(oldest)).toEqual([added[0]!.id, added[total - 1]!.id]);
    expect(oldest[0]!.jobs.map((job) => job.id)).toEqual([added[0]!.id]);

    // No filter: every job once, in walk order.
    const all = await walk(name, { state: 'waiting', order: 'oldest', filter: null });
    expect(ids(all)).toEqual(added.map((job) => job.id));
  });

  it('walks a sorted set newest first by score, with data only when asked', async () => {
    const name = uniqueQueueName('scan-zset');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const jobs = await queue.addBulk(
      Array.from({ length: 5 }, (_, i) => ({
        name: `n${i}`,
        data: { i },
        opts: { delay: 60_000 + i * 1000 },
      })),
    );
    const named = await walk(name, {
      state: 'delayed',
      order: 'newest',
      filter: { mode: 'name', query: 'n' },
    });
    expect(ids(named)).toEqual(jobs.map((job) => job.id).reverse());
    // A name filter reads no data: the jobs it keeps carry none.
    expect(named[0]!.jobs[0]!.data).toEqual({});
    const exported = await walk(name, {
      state: 'delayed',
      order: 'oldest',
      filter: null,
      withData: true,
    });
    expect(exported[0]!.jobs.map((job) => job.data)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
  });

  it('matches the redacted view, never a redacted value', async () => {
    const name = uniqueQueueName('scan-redacted');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.add('signup', { user: { password: 'hunter2', email: 'ada@example.com' } });
    const find = async (query: string) =>
      ids(await walk(name, { state: 'waiting', order: 'newest', filter: { mode: 'text', query } }));
    expect(await find('hunter2')).toEqual([]);
    expect(await find('ada@example')).toHaveLength(1);
    expect(await find('"password":"[redacted]"')).toHaveLength(1);
  });

  it('passes over a job too large to read and counts it', async () => {
    const name = uniqueQueueName('scan-large');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.add('huge', { blob: 'x'.repeat(JOB_SCAN_LIMITS.jobMaxBytes + 10) });
    await queue.add('small', { blob: 'x' });
    const steps = await walk(name, {
      state: 'waiting',
      order: 'oldest',
      filter: { mode: 'text', query: 'blob' },
    });
    expect(ids(steps)).toHaveLength(1);
    expect(steps.at(-1)).toMatchObject({ tooLarge: 1, scanned: 2, done: true });
  });

  it('passes over a job whose other fields make it too large, read only after the first look', async () => {
    const name = uniqueQueueName('scan-rest-large');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const big = await queue.add('big', { tag: 'hit' });
    const small = await queue.add('small', { tag: 'hit' });
    await queue.add('other', { tag: 'miss' });
    // The first look reads data only; progress is read for the jobs that pass it.
    await big.updateProgress({ blob: 'z'.repeat(JOB_SCAN_LIMITS.jobMaxBytes) });
    const steps = await walk(name, {
      state: 'waiting',
      order: 'oldest',
      filter: { mode: 'text', query: 'hit' },
    });
    expect(ids(steps)).toEqual([small.id]);
    expect(steps.at(-1)).toMatchObject({ tooLarge: 1, scanned: 3, done: true });
  });

  it('resumes at the job where a window ran out of bytes for the second read', async () => {
    const name = uniqueQueueName('scan-rest-budget');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const jobs = await queue.addBulk(
      Array.from({ length: 8 }, (_, i) => ({ name: `n${i}`, data: { tag: 'hit' } })),
    );
    // 8 × 0.9 MiB of progress passes one window's 4 MiB: the walk takes them in several steps.
    const progress = { blob: 'p'.repeat(Math.floor(JOB_SCAN_LIMITS.jobMaxBytes * 0.9)) };
    for (const job of jobs) await job.updateProgress(progress);
    const steps = await walk(name, {
      state: 'waiting',
      order: 'oldest',
      filter: { mode: 'text', query: 'hit' },
    });
    expect(steps.length).toBeGreaterThan(1);
    expect(ids(steps)).toEqual(jobs.map((job) => job.id));
    expect(steps.at(-1)).toMatchObject({ scanned: 8, tooLarge: 0, done: true });
  });

  it('keeps the same answer when most jobs pass the first look and windows are read whole', async () => {
    const name = uniqueQueueName('scan-whole');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const size = JOB_SCAN_LIMITS.windowJobs;
    // Two windows where every job has the word, then one where none has: the walk switches to
    // whole reads and back, and must keep exactly the jobs the full matcher keeps.
    const jobs = await queue.addBulk(
      Array.from({ length: size * 3 }, (_, i) => ({
        name: 'job',
        data: i < size * 2 ? { user: i % 7 === 0 ? `wanted-${i}` : `user-${i}` } : { other: i },
      })),
    );
    const steps = await walk(name, {
      state: 'waiting',
      order: 'oldest',
      filter: { mode: 'text', query: 'user-' },
    });
    // Every job of the first two windows has the word "user" (its key); one in 7 lacks "user-".
    const expected = jobs.filter((_, i) => i < size * 2 && i % 7 !== 0).map((job) => job.id);
    expect(ids(steps)).toEqual(expected);
    // Rows are whole whichever way a window was read.
    expect(steps.flatMap((step) => step.jobs).every((job) => job.timestamp > 0)).toBe(true);
  });

  it('stops at the next window once its signal is aborted', async () => {
    const name = uniqueQueueName('scan-abort');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.addBulk(
      Array.from({ length: JOB_SCAN_LIMITS.windowJobs * 3 }, (_, i) => ({
        name: 'job',
        data: { i },
      })),
    );
    const controller = new AbortController();
    const steps: JobScanStep[] = [];
    for await (const step of scanJobs(client, 'bull', name, {
      state: 'waiting',
      order: 'newest',
      filter: null,
      signal: controller.signal,
    })) {
      steps.push(step);
      controller.abort();
    }
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ scanned: JOB_SCAN_LIMITS.windowJobs, done: false });
  });
});

describe('one window', () => {
  it('reads at most its count of jobs and stops before its byte budget, saying what it read', async () => {
    const name = uniqueQueueName('window');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.addBulk(
      Array.from({ length: 10 }, (_, i) => ({ name: `n${i}`, data: { blob: 'y'.repeat(1000) } })),
    );
    // The oldest job's hash is gone (removed after its id was listed): a window says so.
    await client.del(`bull:${name}:1`);
    const request = {
      state: 'waiting' as const,
      order: 'oldest' as const,
      offset: 0,
      count: 4,
      budgetBytes: 100_000,
      jobMaxBytes: 100_000,
      sized: ['name', 'data'],
      unsized: ['timestamp'],
    };
    const window = await readJobWindow(client, 'bull', name, request);
    expect(window.length).toBe(10);
    expect(window.entries.map((entry) => entry.mark)).toEqual(['gone', 'read', 'read', 'read']);
    const read = window.entries[1]!;
    expect(read.mark === 'read' && Object.keys(read.fields).sort()).toEqual([
      'data',
      'name',
      'timestamp',
    ]);

    const tight = await readJobWindow(client, 'bull', name, {
      ...request,
      offset: 1,
      budgetBytes: 2_100,
    });
    expect(tight.entries).toHaveLength(2);
    expect(tight.bytes).toBeLessThanOrEqual(2_100 + 2 * 20);
    const tooLarge = await readJobWindow(client, 'bull', name, {
      ...request,
      offset: 1,
      jobMaxBytes: 500,
    });
    expect(tooLarge.entries.map((entry) => entry.mark)).toEqual([
      'too-large',
      'too-large',
      'too-large',
      'too-large',
    ]);
  });
});
