/**
 * The timing history (engine/history/, docs/metrics.md): what two workers count is written
 * without the `metrics` option, adds up across them, and reads back the same from two consoles'
 * clients, with percentiles within one bucket of the truth taken from the jobs themselves.
 */
import { Queue, Worker, type Job } from 'oxmq';
import { getQueueHistory } from 'oxmq/admin';
import { afterAll, expect, test } from 'vitest';
import { NAMES_PER_MINUTE, OTHER_NAMES } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { expectWithinOneBucket } from '../helpers/timing-summary';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const consoles = [rawClient(), rawClient()];
afterAll(() => Promise.all(consoles.map((client) => client.quit())));

/** Run times (ms) of the jobs: a known spread over several buckets. */
const RUN_MS = [12, 40, 40, 40, 120, 120, 400];

test('two workers: counts add up, percentiles within one bucket, the same from two consoles', async () => {
  const name = uniqueQueueName('history');
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const jobs = await queue.addBulk(
    Array.from({ length: 70 }, (_, i) => ({
      name: i % 2 ? 'resize' : 'upload',
      data: { ms: RUN_MS[i % RUN_MS.length]!, fail: i % 10 === 0 },
    })),
  );
  // Nothing runs for a while: every job waits at least this long.
  await sleep(300);
  const processor = async (job: Job<{ ms: number; fail: boolean }>) => {
    await sleep(job.data.ms);
    if (job.data.fail) throw new Error('planned');
  };
  const workers = [0, 1].map((i) =>
    track(
      new Worker(name, processor, {
        connection: redisOptions(),
        name: `w${i}`,
        concurrency: 8,
        timingHistory: { flushInterval: 200 },
      }),
    ),
  );
  await waitFor(
    async () => (await queue.getCompletedCount()) + (await queue.getFailedCount()) === 70,
  );
  await Promise.all(workers.map((worker) => worker.close()));

  const finished = await Promise.all(jobs.map((job) => queue.getJob(job.id!)));
  const runTruth = finished.map((job) => job!.finishedOn! - job!.processedOn!);
  const waitTruth = finished.map((job) => job!.processedOn! - job!.timestamp);
  const read = await Promise.all(
    consoles.map((client) => getQueueHistory(client, { prefix: 'bull', name }, { range: '1h' })),
  );
  expect(read[1]).toEqual(read[0]);
  const history = read[0]!;
  expect(history.hasData).toBe(true);
  expect(history.total.completed).toBe(63);
  expect(history.total.failed).toBe(7);
  expectWithinOneBucket(history.total.run, runTruth);
  expectWithinOneBucket(history.total.wait, waitTruth);
  expect(history.total.wait!.p50Ms).toBeGreaterThanOrEqual(200);
  // Both workers wrote: each ran some of the jobs, and the sum is every job.
  const ranBy = new Set(finished.map((job) => job!.processedBy));
  expect(ranBy.size).toBe(2);
  expect(history.names.map((n) => n.name).sort()).toEqual(['resize', 'upload']);
  expect(history.names.reduce((sum, n) => sum + n.completed + n.failed, 0)).toBe(70);
  // One job name alone.
  const uploads = await getQueueHistory(
    consoles[0]!,
    { prefix: 'bull', name },
    {
      range: '1h',
      name: 'upload',
    },
  );
  expect(uploads.total.completed + uploads.total.failed).toBe(35);
});

test('random job names stay bounded: the busiest by name, the rest together', async () => {
  const name = uniqueQueueName('history-names');
  const queue = track(new Queue(name, { connection: redisOptions() }));
  const names = Array.from({ length: 60 }, (_, i) => `name-${i}`);
  // name-0 is the busiest (5 jobs), the others have one each.
  await queue.addBulk([
    ...names.map((jobName) => ({ name: jobName, data: {} })),
    ...Array.from({ length: 4 }, () => ({ name: 'name-0', data: {} })),
  ]);
  const worker = track(
    new Worker(name, async () => undefined, {
      connection: redisOptions(),
      timingHistory: { flushInterval: 60_000 },
    }),
  );
  await waitFor(async () => (await queue.getCompletedCount()) === 64);
  await worker.close();
  const history = await getQueueHistory(consoles[0]!, { prefix: 'bull', name }, { range: '1h' });
  expect(history.total.completed).toBe(64);
  // Jobs of one minute, unless the run crossed a minute boundary (then twice the bound).
  expect(history.names.length).toBeLessThanOrEqual(2 * (NAMES_PER_MINUTE + 1));
  expect(history.names.map((n) => n.name)).toContain(OTHER_NAMES);
  expect(history.names.find((n) => n.name === 'name-0')).toMatchObject({ completed: 5 });
  expect(history.names.reduce((sum, n) => sum + n.completed, 0)).toBe(64);
});

test('timingHistory: false writes nothing', async () => {
  const name = uniqueQueueName('history-off');
  const queue = track(new Queue(name, { connection: redisOptions() }));
  await queue.add('job', {});
  const worker = track(
    new Worker(name, async () => undefined, { connection: redisOptions(), timingHistory: false }),
  );
  await waitFor(async () => (await queue.getCompletedCount()) === 1);
  await worker.close();
  const history = await getQueueHistory(consoles[0]!, { prefix: 'bull', name }, { range: '1h' });
  expect(history.hasData).toBe(false);
  expect(await consoles[0]!.keys(`bull:${name}:oxmq:history:*`)).toEqual([]);
});
