/**
 * kill -9 of a redis-server with `appendfsync everysec` under a steady producer and two worker
 * processes, then a restart from its AOF (redis-restart.test.ts, docs/reliability.md, AOF loss
 * windows). Every add is timestamped when it is acknowledged; after the restart the scenario
 * counts the acknowledged adds that are gone and how long before the kill they were
 * acknowledged, and the completions that a worker saw and Redis no longer has.
 *
 * Why a loss can only be recent: with everysec, Redis write(2)s the AOF buffer in its event loop
 * before it sends the replies of that loop turn, and a background thread fdatasync(2)s the file
 * about once a second. A kill of the process leaves what was written in the page cache, where
 * the restart reads it; only a write Redis postponed is lost with the process. Redis postpones
 * the write while the previous background fsync is still running, for at most 2 seconds (then
 * it writes anyway and counts `aof_delayed_fsync`), replying meanwhile. So a process kill loses
 * at most the acknowledgements of the last ~2 s, and none while fsyncs keep up with the disk. A
 * crash of the machine also loses what was written but not yet fsynced: the writes since the
 * start of the last fsync that finished, about one second's worth (`exposure` below measures it
 * from the fsync log of redis-restart-fsync.ts; no process kill can show that loss).
 */
import { Queue } from 'oxmq';
import { expect } from 'vitest';
import type { Track } from '../helpers/cleanup';
import { startFaultWorker, type FaultWorker } from '../helpers/fault-worker';
import { sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import type { Redis } from 'ioredis';
import {
  assertConsistent,
  completionEvents,
  FAST_RECOVERY,
  printResult,
  RECONNECT_BACKOFF_MS,
  resumedAfter,
  runsPerJob,
  stalledJobIds,
  stopWorkers,
  type DeliveryResult,
} from './fault-checks';
import { adminClient } from './fault-run';
import { startEverysecServer, type EverysecServer, type FsyncRecord } from './redis-restart-fsync';

/**
 * The most an acknowledged write may be older than the kill and still be lost to it: Redis's
 * 2 s postponement limit (counted in whole seconds of its clock, so up to 2 s of real time),
 * plus the turn of the event loop and the reply's way to the producer.
 */
export const EVERYSEC_LOSS_BOUND_MS = 2_500;

const DOWN_MS = 1_000;

export interface EverysecOptions {
  scenario: string;
  /** How much longer each AOF fsync takes (0: as the disk does it). */
  fsyncDelayMs: number;
  jobs: number;
  addEveryMs: number;
  faultAfterMs: number;
  /**
   * Kill early inside a slow AOF sync (300-700 ms after it started) rather than right at
   * faultAfterMs: Redis then holds the writes of that whole span postponed (it only stops
   * postponing after 1-2 s), so the kill is sure to catch acknowledged writes still in memory.
   */
  killWhileWritesPostponed?: boolean;
}

export interface EverysecResult {
  ackedBeforeKill: number;
  /** Acknowledged adds missing after the restart, with ms from acknowledgement to the kill. */
  lostAdds: { id: string; ageMs: number }[];
  /** Completions a worker was told of and Redis no longer has, with their age at the kill. */
  revertedCompletions: { id: string; ageMs: number }[];
  /** INFO `aof_delayed_fsync` just before the kill: writes Redis stopped postponing. */
  delayedFsync: number;
  /** Adds acknowledged since the start of the last finished fsync: what a machine crash loses. */
  exposure: { adds: number; windowMs: number };
}

/** At `killAt`, the adds acknowledged since the start of the last fsync that had finished. */
function exposure(acks: Map<string, number>, killAt: number, fsyncs: FsyncRecord[]) {
  const synced = fsyncs.filter((sync) => sync.end <= killAt);
  const lastStart = Math.max(...synced.map((sync) => sync.start));
  const unsynced = [...acks.values()].filter((at) => at >= lastStart && at <= killAt);
  return { adds: unsynced.length, windowMs: killAt - lastStart };
}

/**
 * assertDelivery (fault-checks.ts) for a restart that lost writes: a job may also run twice
 * without a stall when the fetch that gave it to a worker was lost (the job is back in wait, and
 * the first run's completion is refused for want of its lock), but only if that first run started
 * within the loss bound before the kill. Nothing surviving is lost, nothing completes twice.
 */
async function assertEverysecDelivery(
  queue: Queue,
  redis: Redis,
  present: readonly string[],
  workers: readonly FaultWorker[],
  kill: { at: number; exitedAt: number },
): Promise<DeliveryResult & { refetched: number }> {
  const completed = new Set(await queue.getRanges('completed', 0, -1));
  expect(
    present.filter((id) => !completed.has(id)),
    'surviving jobs not completed',
  ).toEqual([]);
  const stalled = await stalledJobIds(redis, queue.name, workers);
  const duplicated = [...runsPerJob(workers)].filter(([, runs]) => runs > 1).map(([id]) => id);
  // A fetch Redis replied to between the kill's signal and the process's exit was lost with it
  // too: the window ends when the process had surely exited, not when the signal was sent.
  const startedInWindow = new Set(
    workers.flatMap((worker) =>
      worker
        .reports('started')
        .filter(
          (m) => Number(m.at) <= kill.exitedAt && kill.at - Number(m.at) <= EVERYSEC_LOSS_BOUND_MS,
        )
        .map((m) => String(m.jobId)),
    ),
  );
  const refetched = duplicated.filter((id) => !stalled.has(id));
  expect(
    refetched.filter((id) => !startedInWindow.has(id)),
    'jobs run twice without a stall or a fetch lost with the AOF',
  ).toEqual([]);
  const twice = [...(await completionEvents(redis, queue.name))].filter(([, n]) => n > 1);
  expect(twice, 'jobs completed more than once').toEqual([]);
  return {
    jobs: present.length,
    lost: 0,
    duplicated: duplicated.length,
    stalled: stalled.size,
    refetched: refetched.length,
  };
}

/** Resolves 300-700 ms into an AOF sync, polling the sync log the preloaded library writes. */
async function untilEarlyInSlowSync(redisServer: EverysecServer): Promise<void> {
  await waitFor(
    () => {
      const started = redisServer.fsyncInProgress();
      const into = started === undefined ? -1 : Date.now() - started;
      return into >= 300 && into <= 700;
    },
    15_000,
    20,
  );
}

const infoField = (info: string, field: string) =>
  Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);

export async function killEverysec(
  track: Track,
  options: EverysecOptions,
): Promise<EverysecResult> {
  const redisServer = await startEverysecServer(options.fsyncDelayMs);
  const { server } = redisServer;
  const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
  const queueName = uniqueQueueName('everysec');
  const queue = track(new Queue(queueName, { connection }));
  queue.on('error', () => undefined);
  const redis = adminClient(track, server.port);
  const workers: FaultWorker[] = [];
  try {
    for (let i = 0; i < 2; i += 1) {
      workers.push(
        await startFaultWorker({
          ...FAST_RECOVERY,
          queueName,
          port: server.port,
          workerName: `w${i}`,
          concurrency: 2,
          workMinMs: 20,
          workMaxMs: 80,
        }),
      );
    }
    const acks = new Map<string, number>();
    const producer = (async () => {
      for (let i = 0; i < options.jobs; i += 1) {
        for (;;) {
          try {
            const id = (await queue.add('job', { i }, { jobId: `job-${i}` })).id!;
            acks.set(id, Date.now());
            break;
          } catch {
            await sleep(100);
          }
        }
        await sleep(options.addEveryMs);
      }
    })();
    await sleep(options.faultAfterMs);
    if (options.killWhileWritesPostponed) await untilEarlyInSlowSync(redisServer);

    const delayedFsync = infoField(await redis.info('persistence'), 'aof_delayed_fsync');
    const killAt = Date.now();
    await server.kill();
    const exitedAt = Date.now();
    // Everything acknowledged by now was acknowledged by the killed process.
    const ackedBefore = new Map(acks);
    const completedBefore = new Map(
      workers.flatMap((worker) =>
        worker.reports('completed').map((m) => [String(m.jobId), Number(m.at)] as const),
      ),
    );
    expect(completedBefore.size).toBeGreaterThan(0);
    const exposed = exposure(ackedBefore, killAt, redisServer.fsyncs());
    await sleep(DOWN_MS);
    await redisServer.restart();
    const endedAt = Date.now();

    const stateOf = async (ids: string[]) =>
      new Map(await Promise.all(ids.map(async (id) => [id, await queue.getJobState(id)] as const)));
    const addStates = await stateOf([...ackedBefore.keys()]);
    const lostAdds = [...ackedBefore]
      .filter(([id]) => addStates.get(id) === 'unknown')
      .map(([id, at]) => ({ id, ageMs: killAt - at }));
    const doneStates = await stateOf([...completedBefore.keys()]);
    const revertedCompletions = [...completedBefore]
      .filter(([id]) => doneStates.get(id) !== 'completed' && !lostAdds.some((l) => l.id === id))
      .map(([id, at]) => ({ id, ageMs: killAt - at }));
    expect(
      [...lostAdds, ...revertedCompletions].filter(({ ageMs }) => ageMs > EVERYSEC_LOSS_BOUND_MS),
      'writes lost although acknowledged longer ago than the everysec bound',
    ).toEqual([]);

    // The queue goes on with what survived: every other job completes, once.
    await producer;
    const present = [...acks.keys()].filter((id) => !lostAdds.some((lost) => lost.id === id));
    await waitFor(async () => (await queue.getCompletedCount()) === present.length, 30_000, 100);
    await stopWorkers(workers);
    const delivery = await assertEverysecDelivery(queue, redis, present, workers, {
      at: killAt,
      exitedAt,
    });
    await assertConsistent(queue, present);
    const resumedMs = workers.map((worker) => resumedAfter(worker, endedAt) ?? Infinity);
    expect(Math.max(...resumedMs)).toBeLessThan(
      FAST_RECOVERY.drainDelay * 1_000 + RECONNECT_BACKOFF_MS,
    );

    const result = {
      ackedBeforeKill: ackedBefore.size,
      lostAdds,
      revertedCompletions,
      delayedFsync,
      exposure: exposed,
    };
    // Lost: here the acknowledged adds the kill took (the survivors all completed, as asserted).
    printResult(options.scenario, {
      ...delivery,
      lost: lostAdds.length,
      faults: 1,
      maxRecoveryMs: Math.max(...resumedMs),
    });
    console.log(
      `AOF-RESULT ${JSON.stringify({
        scenario: options.scenario,
        ackedBeforeKill: result.ackedBeforeKill,
        lostAdds: lostAdds.length,
        lostAgeMs: lostAdds.length
          ? [Math.min(...lostAdds.map((l) => l.ageMs)), Math.max(...lostAdds.map((l) => l.ageMs))]
          : [],
        revertedCompletions: revertedCompletions.length,
        refetched: delivery.refetched,
        revertedAgeMs: revertedCompletions.length
          ? Math.max(...revertedCompletions.map((r) => r.ageMs))
          : 0,
        delayedFsync,
        exposure: exposed,
      })}`,
    );
    return result;
  } finally {
    await Promise.all(workers.map((worker) => worker.kill()));
    await Promise.all([queue.close(), redis.quit()]).catch(() => undefined);
    await server.stop();
  }
}
