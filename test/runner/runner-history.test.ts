/**
 * The runner and the history (docs/metrics.md, "Timing history"): its workers write the timing
 * history of what they ran, and it takes part in sampling the backlog of its prefix.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'oxmq';
import { getQueueHistory } from 'oxmq/admin';
import { afterAll, describe, expect, it } from 'vitest';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, waitFor } from '../helpers/redis';
import { fixture, useRunners } from '../helpers/runner-process';

const track = useCleanup();
const startRunner = useRunners();
const redis = rawClient();
afterAll(() => redis.quit());

describe('worker runner: history', () => {
  it('writes the timing history of its jobs and samples the backlog of its prefix', async () => {
    const prefix = `hist-${randomUUID().slice(0, 8)}`;
    // A queue that exists before the runner starts: its first sample comes at once.
    const idle = track(new Queue('idle', { connection: redisOptions(), prefix }));
    await idle.addBulk([
      { name: 'x', data: {} },
      { name: 'y', data: {} },
    ]);
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { OXMQ_PREFIX: prefix },
    });
    await runner.ready();
    await waitFor(async () => {
      const history = await getQueueHistory(redis, { prefix, name: 'idle' }, { range: '1h' });
      return history.points.some((point) => point.backlog?.waiting === 2);
    }, 15_000);

    const alpha = track(new Queue('alpha', { connection: redisOptions(), prefix }));
    await alpha.addBulk(
      Array.from({ length: 5 }, (_, i) => ({ name: 'echo', data: { text: `${i}` } })),
    );
    await waitFor(async () => (await alpha.getCompletedCount()) === 5, 15_000);
    // A graceful stop closes the workers, which write what they counted.
    runner.signal('SIGTERM');
    expect(await runner.exited).toBe(0);
    const history = await getQueueHistory(redis, { prefix, name: 'alpha' }, { range: '1h' });
    expect(history.total.completed).toBe(5);
    expect(history.total.run?.count).toBe(5);
    expect(history.names).toMatchObject([{ name: 'echo', completed: 5 }]);
  });

  it('OXMQ_HISTORY_SAMPLER=false keeps the runner out of the sampling', async () => {
    const prefix = `hist-off-${randomUUID().slice(0, 8)}`;
    const runner = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { OXMQ_PREFIX: prefix, OXMQ_HISTORY_SAMPLER: 'false' },
    });
    await runner.ready();
    const on = startRunner({
      modules: { 'alpha.ts': fixture('alpha.ts') },
      env: { OXMQ_PREFIX: prefix },
    });
    await on.ready();
    // The lease names its holder (host:pid:random): only the runner with sampling on holds it.
    const holder = await waitFor(() => redis.get(`{${prefix}:oxmq:lease:history-sampler}`), 15_000);
    expect(holder).toContain(`:${on.pid}:`);
  });
});
