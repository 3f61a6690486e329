/**
 * Delivery checks for the lifecycle kills (lifecycle-kill.test.ts), where a job may run more than
 * once on purpose (a failing attempt retried). An attempt is a run at one `attemptsMade`: a job
 * started twice at the same attemptsMade ran an attempt twice, which only stalled recovery may
 * cause. Without retries this is assertDelivery's check (fault-checks.ts), since every run starts
 * at attemptsMade 0.
 */
import type { Redis } from 'ioredis';
import type { Queue } from 'oxmq';
import { expect } from 'vitest';
import type { FaultWorker } from '../helpers/fault-worker';
import { streamEntries } from '../helpers/redis-state';
import { stalledJobIds, type DeliveryResult } from './fault-checks';

/** How many times each (job id, attemptsMade) started, over every worker process. */
export function runsPerAttempt(workers: readonly FaultWorker[]): Map<string, number> {
  const runs = new Map<string, number>();
  for (const worker of workers) {
    for (const report of worker.reports('started')) {
      const attempt = `${String(report.jobId)}@${Number(report.attemptsMade)}`;
      runs.set(attempt, (runs.get(attempt) ?? 0) + 1);
    }
  }
  return runs;
}

/** How many `completed` events the queue's events stream holds per job. */
export async function completionEvents(redis: Redis, queueName: string) {
  const completions = new Map<string, number>();
  for (const { fields } of await streamEntries(redis, queueName)) {
    if (fields.event === 'completed' && fields.jobId) {
      completions.set(fields.jobId, (completions.get(fields.jobId) ?? 0) + 1);
    }
  }
  return completions;
}

/**
 * Every acknowledged job completed, an attempt run twice only for a job reported stalled, no job
 * completed twice.
 */
export async function assertAttemptDelivery(
  queue: Queue,
  redis: Redis,
  acked: readonly string[],
  workers: readonly FaultWorker[],
): Promise<DeliveryResult> {
  const completed = new Set(await queue.getRanges('completed', 0, -1));
  const lost = acked.filter((id) => !completed.has(id));
  expect(lost, 'acknowledged jobs not completed').toEqual([]);

  const stalled = await stalledJobIds(redis, queue.name, workers);
  const repeated = new Set(
    [...runsPerAttempt(workers)]
      .filter(([, runs]) => runs > 1)
      .map(([attempt]) => attempt.slice(0, attempt.lastIndexOf('@'))),
  );
  expect(
    [...repeated].filter((id) => !stalled.has(id)),
    'attempts that ran more than once without a stalled report',
  ).toEqual([]);

  const twice = [...(await completionEvents(redis, queue.name))].filter(([, n]) => n > 1);
  expect(twice, 'jobs completed more than once').toEqual([]);
  return {
    jobs: acked.length,
    lost: lost.length,
    duplicated: repeated.size,
    stalled: stalled.size,
  };
}
