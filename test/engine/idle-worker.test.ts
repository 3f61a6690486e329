/**
 * An idle worker's cost on Redis: it blocks on the marker once per drainDelay and fetches only
 * when a marker wakes it (or every idleRecheckMs as a safety net), instead of running the fetch
 * script after every empty block. The fetches are counted on the worker's own (real) client.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { countScriptCalls } from '../helpers/script-calls';
import { redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('an idle worker', () => {
  it('blocks again after an empty drainDelay instead of fetching, and wakes on a marker', async () => {
    const name = uniqueQueueName('idle');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.waitUntilReady();
    const done: string[] = [];
    const worker = track(
      new Worker(name, async (job) => void done.push(job.id), {
        connection: redisOptions(),
        drainDelay: 0.2,
      }),
    );
    const scripts = countScriptCalls(worker.client);
    await worker.waitUntilReady();
    await sleep(2_000);
    // About ten empty blocks of 0.2 s, and a fetch only at the start (not after each block).
    expect(scripts.count).toBeLessThanOrEqual(2);

    const job = await queue.add('wake', {});
    await waitFor(() => (done.includes(job.id) ? true : null), 5_000);
    expect(scripts.count).toBeGreaterThan(1);
  });
});
