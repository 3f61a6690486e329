/**
 * One lifecycle-kill scenario (lifecycle-kill.test.ts): four OxMQ worker processes on a queue fed
 * by a steady producer; one of them, the victim, dies at a chosen point of a job's lifecycle
 * (fault-worker-kill-at.ts), or is SIGKILLed by the test while it processes a job. Each victim is
 * replaced by a new one, KILLS times; the last replacement lives. Then the common checks: nothing
 * acknowledged lost, an attempt run twice only for a stalled job, no job completed twice, the
 * integrity checker clean, and the survivors working on after every kill.
 */
import { Queue } from 'oxmq';
import { expect, inject } from 'vitest';
import type { Track } from '../helpers/cleanup';
import { startFaultWorker, type FaultWorker, type KillAt } from '../helpers/fault-worker';
import { rawClient, redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import {
  assertConsistent,
  assertDelivery,
  FAST_RECOVERY,
  printResult,
  RECONNECT_BACKOFF_MS,
  resumedAfter,
  stopWorkers,
} from './fault-checks';

/** Victims per scenario; they alternate `replied` and `sent` (see KillAt). */
export const KILLS = 4;

export interface LifecyclePoint {
  scenario: string;
  /** The victim dies at a call of these scripts; without it the test kills it mid-processing. */
  killAt?: Omit<KillAt, 'occurrence' | 'when'>;
  /** Adds the `index`th piece of work; resolves with the ids of the jobs it created. */
  add: (queue: Queue, queueName: string, index: number) => Promise<string[]>;
  addEveryMs: number;
  /** Whose worker processes run (fault-worker.ts): OxMQ's by default. */
  library?: 'oxmq' | 'bullmq';
}

/** One kill: when (ms epoch), the victim and what it reported about its death. */
export interface Kill {
  at: number;
  victim: FaultWorker;
  when?: KillAt['when'];
  script?: string;
  argv: string[];
  replyJobId?: string;
  /** Jobs the victim had started and not completed or failed. */
  held: string[];
}

export interface LifecycleRun {
  queue: Queue;
  redis: ReturnType<typeof rawClient>;
  acked: string[];
  kills: Kill[];
  workers: FaultWorker[];
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

export async function runLifecyclePoint(
  track: Track,
  point: LifecyclePoint,
): Promise<LifecycleRun> {
  const queueName = uniqueQueueName('lifecycle');
  const queue = track(new Queue(queueName, { connection: redisOptions() }));
  const redis = track(rawClient());
  const everyWorker: FaultWorker[] = [];
  let live: FaultWorker[] = [];
  const startWorker = async (killAt?: KillAt) => {
    const worker = await startFaultWorker({
      ...FAST_RECOVERY,
      library: point.library,
      queueName,
      port: inject('redisPort'),
      workerName: `w${everyWorker.length}`,
      concurrency: 2,
      workMinMs: 30,
      workMaxMs: 120,
      killAt,
    });
    everyWorker.push(worker);
    live.push(worker);
    return worker;
  };
  try {
    for (let i = 0; i < 3; i += 1) await startWorker();

    const acked: string[] = [];
    let stopAt = Infinity;
    const producer = (async () => {
      for (let i = 0; Date.now() < stopAt; i += 1) {
        acked.push(...(await point.add(queue, queueName, i)));
        await sleep(point.addEveryMs);
      }
    })();

    const kills: Kill[] = [];
    for (let k = 0; k < KILLS; k += 1) {
      const when = k % 2 === 0 ? 'replied' : 'sent';
      const killAt =
        point.killAt && ({ ...point.killAt, when, occurrence: randomInt(2, 8) } as const);
      const victim = await startWorker(killAt);
      if (killAt) {
        await waitFor(() => !victim.running(), 20_000, 10).catch(() => {
          throw new Error(`victim ${victim.workerName} never reached ${killAt.scripts}`);
        });
        await victim.exited;
      } else {
        const nth = randomInt(2, 8);
        await waitFor(() => victim.reports('started').length >= nth, 20_000, 5);
        await victim.kill();
      }
      const report = victim.reports('killed')[0];
      const at = report ? Number(report.at) : Date.now();
      if (killAt) expect(report, `the kill report of ${victim.workerName}`).toBeDefined();
      live = live.filter((worker) => worker !== victim);
      // Its runs not yet finished: started more often than it completed or failed them.
      const finished = [...victim.reports('completed'), ...victim.reports('failed')];
      const held = [...new Set(victim.reports('started').map((m) => String(m.jobId)))].filter(
        (id) =>
          victim.reports('started').filter((m) => m.jobId === id).length >
          finished.filter((m) => m.jobId === id).length,
      );
      kills.push({
        at,
        victim,
        when: report ? (report.when as KillAt['when']) : undefined,
        script: report ? String(report.script) : undefined,
        argv: report ? (report.argv as string[]) : [],
        replyJobId: report?.replyJobId === undefined ? undefined : String(report.replyJobId),
        held,
      });
    }
    await startWorker();
    // Work keeps arriving for a while after the last kill, so every survivor has some to take.
    stopAt = Date.now() + 2_000;
    await producer;
    await waitFor(async () => (await queue.getCompletedCount()) === acked.length, 30_000, 100);
    await stopWorkers(live);

    const result = await assertDelivery(queue, redis, acked, everyWorker);
    await assertConsistent(queue, acked);

    // Survivors: every worker alive at a kill and after it starts a job again within one
    // drainDelay block plus ioredis's longest reconnect backoff (they lost nothing, but a lost
    // worker must not hold the others up, e.g. through a lock or marker it took with it).
    const bound = FAST_RECOVERY.drainDelay * 1_000 + RECONNECT_BACKOFF_MS;
    const resumedMs = kills.flatMap(({ at }) =>
      everyWorker
        .filter((worker) => !kills.some((kill) => kill.victim === worker))
        .filter((worker) => Number(worker.reports('ready')[0]?.at) < at)
        .map((worker) => resumedAfter(worker, at) ?? Infinity),
    );
    expect(Math.max(...resumedMs), 'slowest survivor back to work').toBeLessThan(bound);

    // Recovery of what the victim held (started, or fetched and never seen): from the kill to
    // the job's completion (finishedOn in Redis), by another worker after its lock expired, or
    // at once by the victim's own completion that Redis ran before the kill (counted as 0).
    const recoveries = await Promise.all(
      kills.flatMap(({ at, held, replyJobId }) =>
        [...held, ...(replyJobId && replyJobId !== '0' ? [replyJobId] : [])].map(async (id) =>
          Math.max(0, ((await queue.getJob(id))?.finishedOn ?? Infinity) - at),
        ),
      ),
    );
    const maxRecoveryMs = Math.max(0, ...recoveries);
    expect(maxRecoveryMs).toBeLessThan(
      FAST_RECOVERY.lockDuration + 2 * FAST_RECOVERY.stalledInterval + 4_000,
    );
    printResult(point.scenario, { ...result, faults: kills.length, maxRecoveryMs });
    return { queue, redis, acked, kills, workers: everyWorker };
  } finally {
    await Promise.all(everyWorker.map((worker) => worker.kill()));
  }
}
