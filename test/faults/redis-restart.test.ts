/**
 * Redis going away and coming back from its append-only file (docs/reliability.md), on a
 * redis-server of the test's own with `--appendonly yes --appendfsync always`: `SHUTDOWN NOSAVE`
 * and `kill -9` while workers process and a producer adds. Every add that resolved survives,
 * every job a worker saw completed stays completed, and the workers reconnect and go on.
 */
import { spawnSync } from 'node:child_process';
import { Queue } from 'oxmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { sleep, uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { runWithFault, type FaultContext } from './fault-run';

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
