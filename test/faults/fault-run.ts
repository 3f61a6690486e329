/**
 * The shape most scenarios share: worker processes on a queue, a producer adding jobs at a steady
 * pace (retrying an add that fails, with the same job id, as an at-least-once producer does), a
 * fault injected while both run, then the checks of fault-checks.ts and each worker's time back
 * to processing after the fault.
 */
import { Queue } from 'oxmq';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { Track } from '../helpers/cleanup';
import { startFaultWorker, type FaultWorker } from '../helpers/fault-worker';
import { sleep, waitFor } from '../helpers/redis';
import {
  assertConsistent,
  assertDelivery,
  FAST_RECOVERY,
  printResult,
  RECONNECT_BACKOFF_MS,
  resumedAfter,
  stopWorkers,
  type DeliveryResult,
} from './fault-checks';

export interface FaultContext {
  queue: Queue;
  workers: readonly FaultWorker[];
  /** Ids whose add resolved so far. */
  acked: readonly string[];
}

export interface FaultRunOptions {
  scenario: string;
  port: number;
  queueName: string;
  jobs: number;
  addEveryMs: number;
  /** When the fault starts, after the producer did. */
  faultAfterMs: number;
  /** Injects the fault; resolves with the time (ms epoch) it ended and how many it injected. */
  fault: (context: FaultContext) => Promise<{ endedAt: number; faults: number }>;
  workers?: number;
}

export interface FaultRunResult extends DeliveryResult {
  workers: FaultWorker[];
  /** Per worker, ms from the fault's end to its first job start. */
  resumedMs: number[];
  addErrors: number;
}

const connectionTo = (port: number) => ({
  host: '127.0.0.1',
  port,
  maxRetriesPerRequest: null,
});

/** A plain client of the test's own server, for commands no Queue sends. */
export function adminClient(track: Track, port: number): Redis {
  const client = new Redis(connectionTo(port));
  // Faults that take Redis away make it report connection errors; they are expected here.
  client.on('error', () => undefined);
  return track(client);
}

export async function runWithFault(
  track: Track,
  options: FaultRunOptions,
): Promise<FaultRunResult> {
  const queue = track(new Queue(options.queueName, { connection: connectionTo(options.port) }));
  queue.on('error', () => undefined);
  const redis = adminClient(track, options.port);
  const workers: FaultWorker[] = [];
  try {
    for (let i = 0; i < (options.workers ?? 2); i += 1) {
      workers.push(
        await startFaultWorker({
          ...FAST_RECOVERY,
          queueName: options.queueName,
          port: options.port,
          workerName: `w${i}`,
          concurrency: 2,
          workMinMs: 20,
          workMaxMs: 80,
        }),
      );
    }
    const acked: string[] = [];
    let addErrors = 0;
    const producer = (async () => {
      for (let i = 0; i < options.jobs; i += 1) {
        for (;;) {
          try {
            acked.push((await queue.add('job', { i }, { jobId: `job-${i}` })).id!);
            break;
          } catch {
            addErrors += 1;
            await sleep(100);
          }
        }
        await sleep(options.addEveryMs);
      }
    })();
    await sleep(options.faultAfterMs);
    const { endedAt, faults } = await options.fault({ queue, workers, acked });
    await producer;
    await waitFor(async () => (await queue.getCompletedCount()) === options.jobs, 30_000, 100);
    await stopWorkers(workers);

    const result = await assertDelivery(queue, redis, acked, workers);
    await assertConsistent(queue, acked);
    const resumedMs = workers.map((worker) => resumedAfter(worker, endedAt) ?? Infinity);
    const maxRecoveryMs = Math.max(...resumedMs);
    printResult(options.scenario, { ...result, faults, maxRecoveryMs });
    // Every worker back to work within one drainDelay block plus ioredis's longest backoff.
    expect(maxRecoveryMs).toBeLessThan(FAST_RECOVERY.drainDelay * 1_000 + RECONNECT_BACKOFF_MS);
    return { ...result, workers, resumedMs, addErrors };
  } finally {
    await Promise.all(workers.map((worker) => worker.kill()));
  }
}
