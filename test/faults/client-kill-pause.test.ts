/**
 * Connection faults on a live Redis (docs/reliability.md), on a redis-server of the test's own:
 * `CLIENT KILL` of only a worker's blocking connection (the one named
 * `<prefix>:<base64 queue>:w:<worker name>`), and `CLIENT PAUSE ... WRITE` for 3 s while jobs
 * are added and processed. Nothing is lost and every worker goes on processing.
 */
import { workerConnectionName } from 'oxmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { sleep, uniqueQueueName, waitFor } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { adminClient, runWithFault } from './fault-run';

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

const PAUSE_MS = 3_000;
const KILL_ROUNDS = 3;

/** CLIENT LIST entries as field maps. */
async function clients(redis: ReturnType<typeof adminClient>): Promise<Record<string, string>[]> {
  const list = (await redis.call('CLIENT', 'LIST')) as string;
  return list
    .split('\n')
    .filter(Boolean)
    .map((line) =>
      Object.fromEntries(
        line
          .split(' ')
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      ),
    );
}

test('CLIENT KILL of the blocking connections: the workers reconnect and lose nothing', async () => {
  const queueName = uniqueQueueName('clientkill');
  const redis = adminClient(track, server.port);
  await runWithFault(track, {
    scenario: 'CLIENT KILL blocking connection',
    port: server.port,
    queueName,
    jobs: 120,
    addEveryMs: 30,
    faultAfterMs: 500,
    async fault({ workers }) {
      let endedAt = 0;
      for (let round = 0; round < KILL_ROUNDS; round += 1) {
        for (const worker of workers) {
          const name = workerConnectionName('bull', queueName, worker.workerName);
          const [blocking] = (await clients(redis)).filter((client) => client.name === name);
          expect(blocking, `blocking connection ${name}`).toBeDefined();
          await redis.call('CLIENT', 'KILL', 'ID', blocking!.id!);
          endedAt = Date.now();
          // It comes back, as a new connection of the same name.
          await waitFor(
            async () =>
              (await clients(redis)).some(
                (client) => client.name === name && client.id !== blocking!.id,
              ),
            5_000,
            50,
          );
        }
        await sleep(700);
      }
      return { endedAt, faults: KILL_ROUNDS * workers.length };
    },
  });
});

test('CLIENT PAUSE WRITE for 3 s: adds and completions wait, nothing is lost', async () => {
  const redis = adminClient(track, server.port);
  await runWithFault(track, {
    scenario: 'CLIENT PAUSE WRITE 3 s',
    port: server.port,
    queueName: uniqueQueueName('pause'),
    jobs: 150,
    addEveryMs: 30,
    faultAfterMs: 1_000,
    async fault() {
      await redis.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
      const endedAt = Date.now() + PAUSE_MS;
      await sleep(PAUSE_MS);
      return { endedAt, faults: 1 };
    },
  });
});
