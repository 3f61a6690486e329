/**
 * A Worker's completions of one event-loop turn share one script call (moveToFinishedBatch):
 * every job still completes with its own return value and event, a refused completion (its lock
 * was lost) affects only that job, and the next jobs come back in the same call.
 *
 * The finish script reads a job's hash once (timestamp, atm and links) instead of EXISTS,
 * HINCRBY and HMGET: a job deleted while it ran must still be refused with "Missing key" and
 * nothing written, and a hash without a timestamp must still complete.
 */
import { describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker } from 'oxmq';
import { completionBatchLimit } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { countScriptCalls } from '../helpers/script-calls';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('completion batching', () => {
  it('sizes calls so a few are in flight at once: a third of the concurrency, 10 to 100', () => {
    expect([2, 20, 30, 100, 300, 10_000].map(completionBatchLimit)).toEqual([
      10, 10, 10, 34, 100, 100,
    ]);
  });

  it('completes jobs finishing together in one call, each with its value and event', async () => {
    const name = uniqueQueueName('coalesce');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const events = track(new QueueEvents(name, { connection: redisOptions() }));
    await events.waitUntilReady();
    const heard = new Map<string, string>();
    events.on('completed', ({ jobId, returnvalue }) => heard.set(jobId, String(returnvalue)));
    const redis = track(rawClient());
    await queue.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'n', data: { i } })));

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const worker = track(
      new Worker(
        name,
        async (job) => {
          started.push(job.id);
          await gate;
          return `done ${job.id}`;
        },
        { connection: redisOptions(), concurrency: 20 },
      ),
    );
    const errors: Error[] = [];
    worker.on('error', (error: Error) => errors.push(error));
    const completed: string[] = [];
    worker.on('completed', (job) => completed.push(job.id));
    await waitFor(() => (started.length === 20 ? true : null));
    // Job 5 loses its lock while it runs: its completion is refused, the others' are not.
    await redis.del(`bull:${name}:5:lock`);

    const scripts = countScriptCalls(worker.client);
    release();
    await waitFor(() => (completed.length === 29 ? true : null));
    // 20 completions at once go out as calls of completionBatchLimit(20) = 10: 2 calls; the
    // remaining 10 jobs, fetched by them, finish together: 1 more; the main loop's fetches
    // once slots free: up to 2. One call per completion would be 29 or more.
    expect(completionBatchLimit(20)).toBe(10);
    expect(scripts.count).toBeLessThanOrEqual(5);
    expect(completed).not.toContain('5');
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('Missing lock for job 5'),
    ]);
    const job = await queue.getJob('17');
    expect(job).toMatchObject({ returnvalue: 'done 17', attemptsMade: 1 });
    await waitFor(() => (heard.size === 29 ? true : null));
    expect(heard.get('17')).toBe('done 17');
    expect(await queue.getJobCounts('completed', 'waiting')).toEqual({
      completed: 29,
      waiting: 0,
    });
  });

  it('refuses a job deleted while it ran (nothing recreated) and completes one without a timestamp', async () => {
    const name = uniqueQueueName('finishread');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const redis = track(rawClient());
    await queue.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'n', data: { i } })));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const worker = track(
      new Worker(
        name,
        async () => {
          started += 1;
          await gate;
          return 'ok';
        },
        { connection: redisOptions(), concurrency: 6 },
      ),
    );
    const errors: Error[] = [];
    worker.on('error', (error: Error) => errors.push(error));
    const completed: string[] = [];
    worker.on('completed', (job) => completed.push(job.id));
    await waitFor(() => (started === 6 ? true : null));
    // Job 2's hash goes (its lock stays); job 4's hash loses the field the script reads first.
    await redis.del(`bull:${name}:2`);
    await redis.hdel(`bull:${name}:4`, 'timestamp');
    release();
    await waitFor(() => (completed.length === 5 ? true : null));

    expect(errors.map((error) => error.message)).toEqual([
      expect.stringContaining('Missing key for job 2'),
    ]);
    expect(await redis.exists(`bull:${name}:2`)).toBe(0);
    expect(await redis.zscore(`bull:${name}:completed`, '2')).toBeNull();
    expect(await redis.hmget(`bull:${name}:4`, 'returnvalue', 'atm', 'ats')).toEqual([
      '"ok"',
      '1',
      '1',
    ]);
    expect(completed.sort()).toEqual(['1', '3', '4', '5', '6']);
  });
});
