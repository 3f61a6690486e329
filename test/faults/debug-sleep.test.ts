/**
 * Redis frozen longer than the lock duration (docs/reliability.md): `DEBUG SLEEP` on a
 * redis-server of the test's own (started with `--enable-debug-command yes`) while workers hold
 * jobs. When Redis wakes, every lock has expired: the stalled checkers recover the jobs and late
 * completions are refused, so a job may run twice, but only as a stalled job.
 */
import { afterAll, beforeAll, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { uniqueQueueName } from '../helpers/redis';
import { startRedis, type RedisServer } from '../setup/redis-server';
import { FAST_RECOVERY } from './fault-checks';
import { adminClient, runWithFault } from './fault-run';

const track = useCleanup();
let server: RedisServer;

beforeAll(async () => {
  server = await startRedis(['--enable-debug-command', 'yes']);
});
afterAll(async () => {
  await server?.stop();
});

const SLEEP_SECONDS = (2.5 * FAST_RECOVERY.lockDuration) / 1_000;

test('DEBUG SLEEP past the lock duration: jobs complete, duplicates only for stalled jobs', async () => {
  const redis = adminClient(track, server.port);
  await runWithFault(track, {
    scenario: `DEBUG SLEEP ${SLEEP_SECONDS} s`,
    port: server.port,
    queueName: uniqueQueueName('debugsleep'),
    jobs: 150,
    addEveryMs: 30,
    faultAfterMs: 1_000,
    async fault() {
      // The reply comes when Redis wakes.
      await redis.call('DEBUG', 'SLEEP', String(SLEEP_SECONDS));
      return { endedAt: Date.now(), faults: 1 };
    },
  });
});
