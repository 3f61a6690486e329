/**
 * What every fault scenario asserts once its fault is over (docs/reliability.md):
 * - nothing acknowledged is lost: every job whose add resolved is completed;
 * - duplicates only for stalled jobs: a job whose processor ran more than once was reported
 *   stalled (a `stalled` event in the queue's events stream, which QueueEvents reads, or a
 *   worker's `stalled` event), and no job was completed twice;
 * - the end state is consistent (assertConsistent).
 * Each scenario prints one `FAULT-RESULT` line with its numbers for the table in
 * docs/reliability.md.
 */
import { Redis as IORedis, type Redis, type RedisOptions } from 'ioredis';
import { Queue } from 'oxmq';
import { checkQueueIntegrityToEnd } from 'oxmq/admin';
import { expect } from 'vitest';
import type { FaultWorker } from '../helpers/fault-worker';
import { streamEntries } from '../helpers/redis-state';

/** The settings the scenarios share: short locks, so a lost job is recovered in seconds. */
export const FAST_RECOVERY = {
  lockDuration: 1_000,
  stalledInterval: 500,
  maxStalledCount: 1_000,
  drainDelay: 1,
  runRetryDelay: 200,
} as const;

/** ioredis's longest pause between reconnection attempts (its default retryStrategy). */
export const RECONNECT_BACKOFF_MS = 2_000;

const STATES = [
  'completed',
  'failed',
  'active',
  'wait',
  'delayed',
  'prioritized',
  'waiting-children',
] as const;

/**
 * The end state of `queue` is consistent for the jobs `jobIds` (every job the scenario created),
 * once its workers have stopped: the integrity checker (engine/admin/redis/integrity/,
 * docs/integrity.md) finds nothing, and what the public Queue API tells agrees: each job in exactly
 * one state list, the state getJobState reports, the counts adding up to the jobs created, and
 * nothing left active. (`paused` is left out: the scenarios never pause, and the engine reads a
 * paused queue's jobs from the wait list.)
 */
export async function assertConsistent(queue: Queue, jobIds: readonly string[]): Promise<void> {
  // The scenarios connect with plain options; the checker reads over a connection of its own.
  const client = new IORedis(queue.opts.connection as RedisOptions);
  const report = await checkQueueIntegrityToEnd(client, {
    prefix: queue.keys.prefix,
    name: queue.name,
  }).finally(() => client.quit());
  expect(report.samples, 'integrity checker findings').toEqual(
    Object.fromEntries(Object.keys(report.samples).map((invariant) => [invariant, []])),
  );
  expect(report.clean, 'integrity checker verdict').toBe(true);
  const statesOf = new Map<string, string[]>();
  for (const state of STATES) {
    for (const id of await queue.getRanges(state, 0, -1)) {
      statesOf.set(id, [...(statesOf.get(id) ?? []), state]);
    }
  }
  const inTwo = [...statesOf].filter(([, states]) => states.length > 1);
  expect(inTwo, 'jobs listed in more than one state').toEqual([]);
  expect([...statesOf.keys()].sort(), 'the jobs in the state lists').toEqual([...jobIds].sort());
  for (const id of jobIds) {
    const listed = statesOf.get(id)?.[0];
    const reported = await queue.getJobState(id);
    expect(reported === 'waiting' ? 'wait' : reported, `state of ${id}`).toBe(listed);
  }
  const counts = await queue.getJobCounts(...STATES);
  expect(
    Object.values(counts).reduce((sum, count) => sum + count, 0),
    'job counts',
  ).toBe(jobIds.length);
  expect(await queue.getActiveCount(), 'active jobs after the workers stopped').toBe(0);
}

export interface DeliveryResult {
  jobs: number;
  lost: number;
  /** Jobs whose processor ran more than once. */
  duplicated: number;
  stalled: number;
}

/** Job ids with a `stalled` event in the queue's events stream or from a worker. */
export async function stalledJobIds(
  redis: Redis,
  queueName: string,
  workers: readonly FaultWorker[],
): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { fields } of await streamEntries(redis, queueName)) {
    if (fields.event === 'stalled' && fields.jobId) ids.add(fields.jobId);
  }
  for (const worker of workers) {
    for (const report of worker.reports('stalled')) ids.add(String(report.jobId));
  }
  return ids;
}

/** How many times each job started, over every worker process the scenario ran. */
export function runsPerJob(workers: readonly FaultWorker[]): Map<string, number> {
  const runs = new Map<string, number>();
  for (const worker of workers) {
    for (const report of worker.reports('started')) {
      const id = String(report.jobId);
      runs.set(id, (runs.get(id) ?? 0) + 1);
    }
  }
  return runs;
}

/**
 * How many times each attempt of a job started, over every worker process: keyed
 * `<job id>@<attemptsMade>`. A job retried after a failing attempt starts again at a higher
 * attemptsMade, on purpose; a job started twice at the same attemptsMade ran that attempt twice,
 * which only stalled recovery may cause. Without retries every run starts at attemptsMade 0, so
 * this counts the runs per job.
 */
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
 * Nothing acknowledged lost, an attempt run twice only for a job reported stalled, no job
 * completed twice. `acked` are the ids whose add resolved; `workers` every worker process the
 * scenario started.
 */
export async function assertDelivery(
  queue: Queue,
  redis: Redis,
  acked: readonly string[],
  workers: readonly FaultWorker[],
): Promise<DeliveryResult> {
  const completed = new Set(await queue.getRanges('completed', 0, -1));
  const lost = acked.filter((id) => !completed.has(id));
  expect(lost, 'acknowledged jobs not completed').toEqual([]);

  const stalled = await stalledJobIds(redis, queue.name, workers);
  const duplicated = new Set(
    [...runsPerAttempt(workers)]
      .filter(([, runs]) => runs > 1)
      .map(([attempt]) => attempt.slice(0, attempt.lastIndexOf('@'))),
  );
  expect(
    [...duplicated].filter((id) => !stalled.has(id)),
    'jobs that ran an attempt more than once without a stalled report',
  ).toEqual([]);

  const twice = [...(await completionEvents(redis, queue.name))].filter(([, n]) => n > 1);
  expect(twice, 'jobs completed more than once').toEqual([]);
  return {
    jobs: acked.length,
    lost: lost.length,
    duplicated: duplicated.size,
    stalled: stalled.size,
  };
}

/** Stops every worker still running (SIGTERM, graceful close) and waits for them to exit. */
export async function stopWorkers(workers: readonly FaultWorker[]): Promise<void> {
  await Promise.all(workers.map((worker) => worker.stop()));
}

/** The first `started` report of `worker` at or after `since` (ms epoch), as ms after `since`. */
export function resumedAfter(worker: FaultWorker, since: number): number | undefined {
  const next = worker.reports('started').find((report) => Number(report.at) >= since);
  return next === undefined ? undefined : Number(next.at) - since;
}

/** One line per scenario run, collected for docs/reliability.md. */
export function printResult(
  scenario: string,
  result: DeliveryResult & { faults: number; maxRecoveryMs: number; completedUnreported?: number },
): void {
  console.log(`FAULT-RESULT ${JSON.stringify({ scenario, ...result })}`);
}
