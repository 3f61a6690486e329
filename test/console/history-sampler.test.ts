/**
 * The console takes part in sampling the backlog history of its prefixes (lib/server/oxmq.ts,
 * started by instrumentation.ts at server start; docs/metrics.md, "Timing history").
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'oxmq';
import { getQueueHistory } from 'oxmq/admin';
import { afterAll, expect, inject, test } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, waitFor } from '../helpers/redis';
import { startConsole, type ConsoleServer } from './console-server';
import { consoleEnv } from './users';

const track = useCleanup();
const redis = rawClient();
let server: ConsoleServer | undefined;
afterAll(async () => {
  await server?.stop();
  await redis.quit();
});

test('a console samples the backlog of the queues of its prefixes from its start', async () => {
  const prefix = `sampled-${randomUUID().slice(0, 8)}`;
  const queue = track(new Queue('backlog', { connection: redisOptions(), prefix }));
  await queue.addBulk([1, 2, 3].map((i) => ({ name: 'job', data: { i } })));
  server = await startConsole(consoleEnv(inject('redisPort'), { OXMQ_PREFIXES: prefix }));
  await waitFor(async () => {
    const history = await getQueueHistory(redis, { prefix, name: 'backlog' }, { range: '1h' });
    return history.points.some((point) => point.backlog?.waiting === 3);
  }, 15_000);
  // The console holds the prefix's sampling lease (no other sampler knows this prefix).
  expect(await redis.pttl(`{${prefix}:oxmq:lease:history-sampler}`)).toBeGreaterThan(0);
});
