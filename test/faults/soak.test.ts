/**
 * The mixed soak (docs/reliability.md): for OXMQ_SOAK_SECONDS seconds (60 by default), an OxMQ
 * producer and a bullmq 6.7.0 producer add jobs to one queue, OxMQ and bullmq worker processes
 * take them, and every few seconds a random fault strikes: SIGKILL of a worker process (replaced
 * by one of the same library), CLIENT KILL of a worker's blocking connection, CLIENT PAUSE WRITE
 * for 1-2 s, or DEBUG SLEEP 1.5 s (past the lock duration). Once the producers stop and the
 * workers drain and stop, the checks of fault-checks.ts hold over both libraries' workers.
 *
 * The long variant: `OXMQ_SOAK_SECONDS=600 npm run test:faults -- test/faults/soak.test.ts`.
 */
import { Queue as BullQueue } from 'bullmq';
import { Queue } from 'oxmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { startFaultWorker, type FaultWorker } from '../helpers/fault-worker';
import { sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import {
  assertConsistent,
  assertDelivery,
  FAST_RECOVERY,
  printResult,
  stopWorkers,
} from './fault-checks';
import { adminClient } from './fault-run';
import {
  blockingConnectionId,
  FAULT_KINDS,
  faultSchedule,
  killRecord,
  killRecoveries,
  type FaultKind,
  type Kill,
} from './soak-faults';

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis(['--enable-debug-command', 'yes']);
});
afterAll(async () => {
  await server?.stop();
});

const SOAK_SECONDS = Number(process.env.OXMQ_SOAK_SECONDS ?? 60);
const LIBRARIES = ['oxmq', 'bullmq'] as const;
type Library = (typeof LIBRARIES)[number];
const WORKERS_PER_LIBRARY = 2;
/** Per producer: two producers make about 330 jobs per 10 s, well within two cores' reach. */
const ADD_EVERY_MS = 60;
const FAULT_EVERY_MIN_MS = 2_500;
const FAULT_EVERY_MAX_MS = 5_000;
const DEBUG_SLEEP_SECONDS = 1.5;
/** Time for the workers to finish the backlog once the producers stop. */
const DRAIN_MS = 60_000;
/**
 * The checks read every `completed` and `stalled` event of the run from the events stream: its
 * cap (both libraries' Queues write it to the queue's meta) must keep them all.
 */
const EVENTS_MAX_LEN = 5_000_000;

const connection = (port: number) => ({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
const randomBetween = (min: number, max: number) => min + Math.random() * (max - min);
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

test(
  `soak: OxMQ and bullmq side by side for ${SOAK_SECONDS} s of random faults`,
  async () => {
    const queueName = uniqueQueueName('soak');
    const streams = { events: { maxLen: EVENTS_MAX_LEN } };
    const queue = track(new Queue(queueName, { connection: connection(server.port), streams }));
    queue.on('error', () => undefined);
    const bullQueue = track(
      new BullQueue(queueName, { connection: connection(server.port), streams }),
    );
    bullQueue.on('error', () => undefined);
    const redis = adminClient(track, server.port);

    const everyWorker: FaultWorker[] = [];
    let live: { worker: FaultWorker; library: Library }[] = [];
    const startWorker = async (library: Library) => {
      const worker = await startFaultWorker({
        ...FAST_RECOVERY,
        library,
        queueName,
        port: server.port,
        workerName: `${library}-${everyWorker.length}`,
        concurrency: 2,
        workMinMs: 20,
        workMaxMs: 120,
      });
      everyWorker.push(worker);
      live.push({ worker, library });
    };

    let producing = true;
    /** Set when the test ends early: an add that keeps failing is given up. */
    let abandoned = false;
    try {
      for (const library of LIBRARIES) {
        for (let i = 0; i < WORKERS_PER_LIBRARY; i += 1) await startWorker(library);
      }

      const acked: string[] = [];
      const addedBy: Record<Library, number> = { oxmq: 0, bullmq: 0 };
      let addErrors = 0;
      const produce = async (library: Library) => {
        for (let i = 0; producing; i += 1) {
          const jobId = `${library}-${i}`;
          // An add that fails is retried with the same id until it resolves: at least once.
          for (;;) {
            try {
              const job =
                library === 'oxmq'
                  ? await queue.add('job', { i }, { jobId })
                  : await bullQueue.add('job', { i }, { jobId });
              acked.push(job.id!);
              addedBy[library] += 1;
              break;
            } catch {
              if (abandoned) return;
              addErrors += 1;
              await sleep(100);
            }
          }
          await sleep(ADD_EVERY_MS);
        }
      };
      const producers = Promise.all(LIBRARIES.map(produce));

      const faults: Record<FaultKind, number> = {
        sigkill: 0,
        clientKill: 0,
        pause: 0,
        debugSleep: 0,
      };
      let clientKillMissed = 0;
      const kills: Kill[] = [];
      /** Each injects one fault of its kind; false when there was nothing to strike. */
      const inject: Record<FaultKind, () => Promise<boolean>> = {
        async sigkill() {
          const victim = pick(live);
          live = live.filter((entry) => entry !== victim);
          const at = Date.now();
          await victim.worker.kill();
          kills.push(killRecord(victim.worker, at));
          await startWorker(victim.library);
          return true;
        },
        async clientKill() {
          const { worker } = pick(live);
          const id = await blockingConnectionId(redis, queueName, worker.workerName);
          // A blocking connection still reconnecting after an earlier fault has nothing to kill.
          if (!id) return false;
          await redis.call('CLIENT', 'KILL', 'ID', id);
          return true;
        },
        async pause() {
          const ms = Math.round(randomBetween(1_000, 2_000));
          await redis.call('CLIENT', 'PAUSE', String(ms), 'WRITE');
          await sleep(ms);
          return true;
        },
        async debugSleep() {
          // The reply comes when Redis wakes.
          await redis.call('DEBUG', 'SLEEP', String(DEBUG_SLEEP_SECONDS));
          return true;
        },
      };
      const soakEnds = Date.now() + SOAK_SECONDS * 1_000;
      const nextFault = faultSchedule();
      while (Date.now() < soakEnds) {
        await sleep(randomBetween(FAULT_EVERY_MIN_MS, FAULT_EVERY_MAX_MS));
        if (Date.now() >= soakEnds) break;
        const kind = nextFault();
        if (await inject[kind]()) faults[kind] += 1;
        else clientKillMissed += 1;
      }
      producing = false;
      await producers;

      await waitFor(async () => (await queue.getCompletedCount()) >= acked.length, DRAIN_MS, 200);
      await stopWorkers(live.map(({ worker }) => worker));

      // The stream kept every event the checks read.
      expect(await redis.hget(queue.keys.meta, 'opts.maxLenEvents')).toBe(String(EVENTS_MAX_LEN));
      const result = await assertDelivery(queue, redis, acked, everyWorker);
      await assertConsistent(queue, acked);
      const completedBy = (library: Library) =>
        everyWorker
          .filter((worker) => worker.workerName.startsWith(`${library}-`))
          .reduce((sum, worker) => sum + worker.reports('completed').length, 0);
      const { recoveries, completedUnreported } = await killRecoveries(queue, kills, everyWorker);
      const summary = {
        ...result,
        faults: FAULT_KINDS.reduce((sum, kind) => sum + faults[kind], 0),
        maxRecoveryMs: Math.max(0, ...recoveries),
        heldAtKills: recoveries.length + completedUnreported,
        completedUnreported,
        seconds: SOAK_SECONDS,
        faultsByKind: faults,
        addedBy,
        completedBy: { oxmq: completedBy('oxmq'), bullmq: completedBy('bullmq') },
        clientKillMissed,
        addErrors,
        workerProcesses: everyWorker.length,
      };
      printResult('soak (OxMQ + bullmq 6.7.0, random faults)', summary);

      // Both libraries produced and processed, and the faults actually struck.
      for (const library of LIBRARIES) {
        expect(addedBy[library], `jobs added by ${library}`).toBeGreaterThan(0);
        expect(
          summary.completedBy[library],
          `jobs completed by ${library} workers`,
        ).toBeGreaterThan(0);
      }
      expect(summary.faults).toBeGreaterThanOrEqual(Math.floor(SOAK_SECONDS / 10));
      // Every kind struck (a full round takes at most 4 x 5 s plus the faults' own time).
      if (SOAK_SECONDS >= 40) {
        for (const kind of FAULT_KINDS) expect(faults[kind], `${kind} faults`).toBeGreaterThan(0);
      }
    } finally {
      producing = false;
      abandoned = true;
      await Promise.all(everyWorker.map((worker) => worker.kill()));
    }
  },
  SOAK_SECONDS * 1_000 + 150_000,
);
