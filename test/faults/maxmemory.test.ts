/**
 * Redis at `maxmemory` under `noeviction` (docs/reliability.md), on a redis-server of the test's
 * own with a small limit: a producer fills it with jobs of 4 KB, and then
 * - every add is refused with RedisOutOfMemoryError (code REDIS_OOM), and nothing of a refused
 *   add is written: no job hash, and the integrity checker finds nothing;
 * - the full queue can still be read: the integrity checker, the state ranges, each job's state
 *   and the counts are read with Redis at maxmemory;
 * - a worker cannot free memory by itself: fetching a job writes, so it is refused too, and the
 *   worker only reports the error and retries;
 * - once maxmemory is raised the worker drains the queue (removeOnComplete frees the jobs), and
 *   under the first limit again adds succeed and complete.
 */
import { Queue, RedisOutOfMemoryError, Worker, type JobsOptions } from 'oxmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { assertConsistent, printResult } from './fault-checks';
import { adminClient } from './fault-run';

const MAXMEMORY = 6 * 1024 * 1024;
const JOB_DATA = { blob: 'x'.repeat(4096) };
const BATCH = 20;
/** How far under the used memory the limit is set once the producer was refused. */
const FULL_MARGIN = 1024 * 1024;
/** How long the stuck worker is watched. */
const STUCK_MS = 2_000;

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis(['--maxmemory', String(MAXMEMORY)]);
});
afterAll(async () => {
  await server?.stop();
});

const jobsOf = (ids: readonly string[]) =>
  ids.map((jobId) => ({
    name: 'fill',
    data: JOB_DATA,
    opts: { jobId, removeOnComplete: true } satisfies JobsOptions,
  }));

/** Redis's refusal, typed, with ioredis's reply as its cause. */
function expectOutOfMemory(error: unknown): void {
  expect(error).toBeInstanceOf(RedisOutOfMemoryError);
  expect((error as RedisOutOfMemoryError).code).toBe('REDIS_OOM');
  expect(String(((error as RedisOutOfMemoryError).cause as Error).message)).toMatch(/^OOM /);
}

test('maxmemory under noeviction: adds refused with REDIS_OOM, nothing half-written, processing resumes once memory is raised', async () => {
  const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
  const queueName = uniqueQueueName('maxmemory');
  const queue = track(new Queue(queueName, { connection }));
  const redis = adminClient(track, server.port);
  const usedMemory = async () =>
    Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? NaN);

  // Fill: batches until Redis refuses one.
  const acked: string[] = [];
  const refused: string[] = [];
  const fillStart = Date.now();
  for (let batch = 0; refused.length === 0; batch += 1) {
    expect(Date.now() - fillStart, 'time to fill maxmemory').toBeLessThan(20_000);
    const ids = Array.from({ length: BATCH }, (_, i) => `b${batch}-${i}`);
    try {
      await queue.addBulk(jobsOf(ids));
      acked.push(...ids);
    } catch (error) {
      expectOutOfMemory(error);
      refused.push(...ids);
    }
  }
  const fillMs = Date.now() - fillStart;
  // Right at the limit, Redis's verdict depends on the command it checks (the command's own
  // query buffer counts as used memory): a smaller command may pass where a batch was refused.
  // Lowering the limit under what is used makes "full" hold for every command that follows.
  const usedAtRefusal = await usedMemory();
  const fullLimit = usedAtRefusal - FULL_MARGIN;
  await redis.config('SET', 'maxmemory', String(fullLimit));

  // Every further add is refused alike, single or bulk.
  for (let i = 0; i < 3; i += 1) {
    const jobId = `single-${i}`;
    await queue
      .add('fill', JOB_DATA, { jobId, removeOnComplete: true })
      .then(() => expect.fail(`add of ${jobId} resolved at maxmemory`), expectOutOfMemory);
    refused.push(jobId);
  }
  const lateBatch = Array.from({ length: BATCH }, (_, i) => `late-${i}`);
  await queue
    .addBulk(jobsOf(lateBatch))
    .then(() => expect.fail('addBulk resolved at maxmemory'), expectOutOfMemory);
  refused.push(...lateBatch);

  // Nothing half-written: no hash of a refused job, and the acknowledged ones are whole.
  const written = await Promise.all(refused.map((id) => redis.exists(queue.keys.base + id)));
  expect(
    refused.filter((_, i) => written[i] !== 0),
    'refused jobs with a hash',
  ).toEqual([]);
  // The queue can be looked at while full: the checker, getRanges, getJobState and the counts
  // all read at maxmemory.
  await assertConsistent(queue, acked);

  // A worker cannot make room: fetching a job is a write, refused like the adds.
  const completed: string[] = [];
  const runs: string[] = [];
  const workerErrors: unknown[] = [];
  const worker = track(
    new Worker(
      queueName,
      async (job) => {
        runs.push(job.id!);
        return 'done';
      },
      { connection, drainDelay: 1, runRetryDelay: 200 },
    ),
  );
  worker.on('completed', (job) => completed.push(job.id!));
  worker.on('error', (error) => workerErrors.push(error));
  await sleep(STUCK_MS);
  expect(runs, 'jobs fetched while Redis is at maxmemory').toEqual([]);
  expect(completed, 'jobs completed while Redis is at maxmemory').toEqual([]);
  expect(workerErrors.length, 'worker errors while stuck').toBeGreaterThan(0);
  for (const error of workerErrors) expectOutOfMemory(error);
  expect(await queue.getWaitingCount()).toBe(acked.length);

  // Raising maxmemory lets the worker drain the queue; completing frees each job.
  const raisedAt = Date.now();
  await redis.config('SET', 'maxmemory', String(2 * MAXMEMORY));
  await waitFor(() => completed.length > 0, 10_000, 10);
  const recoveryMs = Date.now() - raisedAt;
  await waitFor(() => completed.length >= acked.length, 30_000, 50);
  expect([...completed].sort(), 'jobs completed after the raise').toEqual([...acked].sort());
  expect(await usedMemory(), 'used memory once drained').toBeLessThan(MAXMEMORY / 2);

  // Back under the first limit, adds succeed and complete.
  await redis.config('SET', 'maxmemory', String(MAXMEMORY));
  const again = Array.from({ length: 5 * BATCH }, (_, i) => `again-${i}`);
  for (let i = 0; i < again.length; i += BATCH) {
    await queue.addBulk(jobsOf(again.slice(i, i + BATCH)));
  }
  await waitFor(() => completed.length >= acked.length + again.length, 30_000, 50);
  await worker.close();
  expect(new Set(completed).size, 'jobs completed twice').toBe(completed.length);
  expect([...completed].sort()).toEqual([...acked, ...again].sort());
  // removeOnComplete: nothing is left of any job.
  await assertConsistent(queue, []);

  console.log(
    `MAXMEMORY-FILL ${JSON.stringify({ fillMs, acked: acked.length, usedAtRefusal, workerErrors: workerErrors.length })}`,
  );
  printResult('maxmemory', {
    jobs: acked.length + again.length,
    lost: [...acked, ...again].filter((id) => !completed.includes(id)).length,
    duplicated: runs.length - new Set(runs).size,
    stalled: 0,
    faults: 1,
    maxRecoveryMs: recoveryMs,
  });
});
