/**
 * Redis going away and coming back from its append-only file (docs/reliability.md), on a
 * redis-server of the test's own with `--appendonly yes --appendfsync always`: `SHUTDOWN NOSAVE`
 * and `kill -9` while workers process and a producer adds. Every add that resolved survives,
 * every job a worker saw completed stays completed, and the workers reconnect and go on.
 *
 * With `appendfsync everysec` (redis-restart-everysec.ts) a kill -9 may lose recent writes: the
 * scenarios measure how many acknowledged adds and completions are gone and how recent they were,
 * on the disk as it is and on a disk whose every AOF fsync takes 3 s longer.
 */
import { spawnSync } from 'node:child_process';
import { Queue } from 'oxmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { sleep, uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { runWithFault, type FaultContext } from './fault-run';
import { killEverysec } from './redis-restart-everysec';

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
});
afterAll(async () => {
  await server?.stop();
});

const DOWN_MS = 1_000;

/** The jobs some worker reported completed: Redis replied to their completion. */
function reportedCompleted({ workers }: FaultContext): string[] {
  return workers.flatMap((worker) => worker.reports('completed').map((m) => String(m.jobId)));
}

/**
 * Takes Redis down with `crash`, restarts it from the same directory after DOWN_MS, and checks
 * that every acknowledged add and every reported completion survived.
 */
async function crashAndRestart(context: FaultContext, crash: () => Promise<void>) {
  const ackedBefore = [...context.acked];
  const completedBefore = reportedCompleted(context);
  expect(completedBefore.length).toBeGreaterThan(0);
  await crash();
  await sleep(DOWN_MS);
  await server.restart();
  const endedAt = Date.now();
  const probe = track(new Queue(context.queue.name, { connection: { port: server.port } }));
  const states = await Promise.all(ackedBefore.map((id) => probe.getJobState(id)));
  expect(
    ackedBefore.filter((_, i) => states[i] === 'unknown'),
    'acknowledged adds missing after the restart',
  ).toEqual([]);
  const completedStates = await Promise.all(completedBefore.map((id) => probe.getJobState(id)));
  expect(
    completedBefore.filter((_, i) => completedStates[i] !== 'completed'),
    'completed jobs in another state after the restart',
  ).toEqual([]);
  return { endedAt, faults: 1 };
}

test('SHUTDOWN NOSAVE and restart: no acknowledged job lost, no completion reverted', async () => {
  await runWithFault(track, {
    scenario: 'SHUTDOWN NOSAVE + restart (AOF always)',
    port: server.port,
    queueName: uniqueQueueName('shutdown'),
    jobs: 150,
    addEveryMs: 30,
    faultAfterMs: 1_500,
    fault: (context) =>
      crashAndRestart(context, async () => {
        const exited = new Promise((resolve) => server.process.once('exit', resolve));
        // redis-cli: an ioredis client would resend the unanswered SHUTDOWN on reconnecting.
        spawnSync('redis-cli', ['-p', String(server.port), 'SHUTDOWN', 'NOSAVE']);
        await exited;
      }),
  });
});

test('kill -9 of redis-server and restart: no acknowledged job lost, no completion reverted', async () => {
  await runWithFault(track, {
    scenario: 'redis-server kill -9 + restart (AOF always)',
    port: server.port,
    queueName: uniqueQueueName('kill9'),
    jobs: 150,
    addEveryMs: 30,
    faultAfterMs: 1_500,
    fault: (context) => crashAndRestart(context, () => server.kill()),
  });
});

test('kill -9 with appendfsync everysec: nothing acknowledged lost while fsyncs keep up', async () => {
  const result = await killEverysec(track, {
    scenario: 'redis-server kill -9 + restart (AOF everysec)',
    fsyncDelayMs: 0,
    // Enough adds to still be adding when the kill comes (about 100 a second).
    jobs: 450,
    addEveryMs: 10,
    faultAfterMs: 3_000,
  });
  // The AOF was fsynced about once a second: a machine crash at the kill would have lost the
  // adds acknowledged in the last second or so, a process kill only loses postponed writes.
  expect(result.exposure.windowMs).toBeLessThan(2_500);
  expect(result.exposure.adds).toBeGreaterThan(0);
});

test('kill -9 with appendfsync everysec on a busy disk: only the last ~2 s of writes lost', async () => {
  const result = await killEverysec(track, {
    scenario: 'redis-server kill -9 + restart (AOF everysec, fsync 3 s slower)',
    fsyncDelayMs: 3_000,
    // Enough adds to still be adding when the kill comes (about 100 a second, the kill within
    // ~8 s): writes postponed at the kill are then sure to include acknowledged adds.
    jobs: 1_100,
    addEveryMs: 10,
    faultAfterMs: 4_500,
    killWhileWritesPostponed: true,
  });
  // Redis had to stop postponing its AOF write at least once (the 2 s limit), and the kill
  // caught acknowledged writes still postponed in its memory.
  expect(result.delayedFsync).toBeGreaterThan(0);
  expect(result.lostAdds.length).toBeGreaterThan(0);
});
