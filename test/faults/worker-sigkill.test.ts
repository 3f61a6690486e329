/**
 * Worker processes SIGKILLed at random points (docs/reliability.md): four OxMQ worker processes,
 * a producer adding 300 jobs, and a killer that SIGKILLs a random worker about every second and
 * starts a replacement. A killed worker never releases its locks: the jobs it held are recovered
 * by the others' stalled checkers once the locks expire, and run again.
 */
import { Queue } from 'oxmq';
import { expect, inject, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { startFaultWorker, type FaultWorker } from '../helpers/fault-worker';
import { killRecord, killRecoveries, type Kill } from './soak-faults';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import {
  assertConsistent,
  assertDelivery,
  FAST_RECOVERY,
  printResult,
  stopWorkers,
} from './fault-checks';

const track = useCleanup();

const WORKERS = 4;
const JOBS = 300;
const MIN_KILLS = 5;

test('SIGKILLed workers: every added job completes, only stalled jobs run twice', async () => {
  const queueName = uniqueQueueName('sigkill');
  const queue = track(new Queue(queueName, { connection: redisOptions() }));
  const redis = track(rawClient());
  const everyWorker: FaultWorker[] = [];
  let live: FaultWorker[] = [];
  const startWorker = async () => {
    const worker = await startFaultWorker({
      ...FAST_RECOVERY,
      queueName,
      port: inject('redisPort'),
      workerName: `w${everyWorker.length}`,
      concurrency: 2,
      workMinMs: 30,
      workMaxMs: 200,
    });
    everyWorker.push(worker);
    live.push(worker);
  };
  try {
    for (let i = 0; i < WORKERS; i += 1) await startWorker();

    const acked: string[] = [];
    let producing = true;
    const producer = (async () => {
      for (let i = 0; i < JOBS; i += 1) {
        const job = await queue.add('job', { i }, { jobId: `job-${i}` });
        acked.push(job.id!);
        await sleep(25);
      }
      producing = false;
    })();

    const kills: Kill[] = [];
    while (producing || kills.length < MIN_KILLS) {
      await sleep(500 + Math.random() * 500);
      const victim = live[Math.floor(Math.random() * live.length)]!;
      live = live.filter((worker) => worker !== victim);
      const at = Date.now();
      await victim.kill();
      kills.push(killRecord(victim, at));
      await startWorker();
    }
    await producer;
    await waitFor(async () => (await queue.getCompletedCount()) === JOBS, 30_000, 100);
    await stopWorkers(live);

    const result = await assertDelivery(queue, redis, acked, everyWorker);
    await assertConsistent(queue, acked);

    // Recovery: from a kill to the completion, by another worker, of each job it held. A held
    // job the victim itself completed just before the kill (its report cut off) is no recovery.
    const { recoveries, completedUnreported } = await killRecoveries(queue, kills, everyWorker);
    const maxRecoveryMs = Math.max(0, ...recoveries);
    printResult('worker SIGKILL', {
      ...result,
      faults: kills.length,
      maxRecoveryMs,
      completedUnreported,
    });
    expect(kills.length).toBeGreaterThanOrEqual(MIN_KILLS);
    // Some kill caught a worker holding a job, so the recovery path ran.
    expect(recoveries.length).toBeGreaterThan(0);
    // Lock expiry plus two stalled checks, plus slack for a 2-core machine starting processes.
    expect(maxRecoveryMs).toBeLessThan(
      FAST_RECOVERY.lockDuration + 2 * FAST_RECOVERY.stalledInterval + 4_000,
    );
  } finally {
    await Promise.all(everyWorker.map((worker) => worker.kill()));
  }
}, 90_000);
