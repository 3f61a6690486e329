/**
 * Event-loop starvation past lockDuration (docs/reliability.md): worker A's processor blocks its
 * event loop longer than the lock lives, so A renews nothing; worker B's stalled checker recovers
 * the job and B runs it. A's completion, when its loop comes back, is refused (B holds the lock)
 * and leaves B's return value in place; A then goes on processing.
 */
import { Queue } from 'oxmq';
import { expect, inject, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { startFaultWorker, type FaultWorker, type JobInstructions } from '../helpers/fault-worker';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';
import {
  assertConsistent,
  assertDelivery,
  FAST_RECOVERY,
  printResult,
  RECONNECT_BACKOFF_MS,
  resumedAfter,
  stopWorkers,
} from './fault-checks';

const track = useCleanup();

const BLOCK_MS = 3_000;
/** B still holds the job when A's loop comes back. */
const B_WORK_MS = 4_000;
const FOLLOW_UPS = 6;

test('a worker starved past its lock: another recovers the job, the late completion is refused', async () => {
  const queueName = uniqueQueueName('starve');
  const queue = track(new Queue(queueName, { connection: redisOptions() }));
  const redis = track(rawClient());
  const workers: FaultWorker[] = [];
  const start = async (workerName: string) => {
    const worker = await startFaultWorker({
      ...FAST_RECOVERY,
      queueName,
      port: inject('redisPort'),
      workerName,
      concurrency: 1,
      workMinMs: 20,
      workMaxMs: 100,
    });
    workers.push(worker);
    return worker;
  };
  try {
    const a = await start('A');
    const data: JobInstructions = { blockMs: BLOCK_MS, blockIn: 'A', workMs: B_WORK_MS };
    const starved = (await queue.add('starved', data, { jobId: 'starved' })).id!;
    const startedInA = await a.waitForMessage((m) => m.event === 'started' && m.jobId === starved);
    const b = await start('B');

    // A's loop comes back and its completion is refused.
    const refusal = await a.waitForMessage((m) => m.event === 'error', 15_000);
    const startedInB = await b.waitForMessage((m) => m.event === 'started' && m.jobId === starved);
    expect(Number(startedInB.at)).toBeLessThan(Number(refusal.at));
    expect(String(refusal.message)).toMatch(/lock/i);

    // While B still works on it, A takes the next jobs.
    const followUps: string[] = [];
    for (let i = 0; i < FOLLOW_UPS; i += 1) {
      followUps.push((await queue.add('next', {}, { jobId: `next-${i}` })).id!);
    }
    await b.waitForMessage((m) => m.event === 'completed' && m.jobId === starved, 15_000);
    await waitFor(async () => (await queue.getCompletedCount()) === FOLLOW_UPS + 1, 15_000, 50);
    await stopWorkers(workers);

    expect(a.reports('completed').map((m) => m.jobId)).not.toContain(starved);
    const job = await queue.getJob(starved);
    expect(job?.returnvalue).toEqual({ by: 'B', pid: b.pid });
    const acked = [starved, ...followUps];
    const result = await assertDelivery(queue, redis, acked, workers);
    expect(result.duplicated).toBe(1);
    await assertConsistent(queue, acked);

    // A back to processing after its refused completion; recovery from the lock's expiry.
    const resumed = resumedAfter(a, Number(refusal.at));
    expect(resumed).toBeDefined();
    expect(resumed!).toBeLessThan(FAST_RECOVERY.drainDelay * 1_000 + RECONNECT_BACKOFF_MS);
    const lockExpired = Number(startedInA.at) + FAST_RECOVERY.lockDuration;
    const maxRecoveryMs = Math.max(Number(startedInB.at) - lockExpired, resumed!);
    printResult('event-loop starvation', { ...result, faults: 1, maxRecoveryMs });
  } finally {
    await Promise.all(workers.map((worker) => worker.kill()));
  }
}, 60_000);
