/**
 * "Rate limited" in the console's overview and diagnosis means job starts are held back now
 * (engine/admin/redis/rate-limit-hold.ts): a queue limited only by its workers' own `limiter`
 * option has a live window as soon as one job starts, yet holds nothing back until the window's
 * count reaches the workers' max, which their heartbeat reports.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { diagnoseQueue, getQueueOverview } from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('rate limited means held back', () => {
  it('a window below the workers’ own max is not a rate limit; at the max it is', async () => {
    const name = uniqueQueueName('hold');
    const client = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const worker = track(
      new Worker(name, async () => 'ok', {
        connection: redisOptions(),
        limiter: { max: 3, duration: 60_000 },
        heartbeatInterval: 100,
      }),
    );
    await worker.waitUntilReady();
    await waitFor(async () => (await client.zcard(`bull:${name}:oxmq:workers`)) === 1);

    await queue.add('one', {});
    await waitFor(async () => (await queue.getCompletedCount()) === 1);
    // The window is open (one start counted) but two more may start in it.
    expect(await client.pttl(queue.keys.limiter)).toBeGreaterThan(0);
    const open = await getQueueOverview(client, 'bull', name);
    expect(open.rateLimited).toBe(false);
    expect(open.problems.map((problem) => problem.kind)).not.toContain('rate-limited');
    const moving = await diagnoseQueue(client, 'bull', name);
    expect(moving.reasons.map((reason) => reason.code)).not.toContain('rate-limited');

    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'more', data: { n } })));
    await waitFor(async () => (await queue.getCompletedCount()) === 3);
    const held = await getQueueOverview(client, 'bull', name);
    expect(held.rateLimited).toBe(true);
    expect(held.rateLimitTtlMs).toBeGreaterThan(50_000);
    const diagnosis = await diagnoseQueue(client, 'bull', name);
    expect(diagnosis.reasons.map((reason) => reason.code)).toContain('rate-limited');
  });
});
