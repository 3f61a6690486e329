/**
 * An idle worker's cost on Redis: it blocks on the marker once per drainDelay and fetches only
 * when a marker wakes it (or every idleRecheckMs as a safety net), instead of running the fetch
 * script after every empty block. The fetches are counted on the worker's own (real) client.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../engine';
import { useCleanup } from '../helpers/cleanup';
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
    // Count the script calls the worker sends (fetches) by watching its client's commands.
    let scriptCalls = 0;
    const client = worker.client;
    const send = client.sendCommand.bind(client);
    client.sendCommand = (command, stream) => {
      if (command.name === 'evalsha' || command.name === 'eval') scriptCalls += 1;
      return send(command, stream);
    };
    await worker.waitUntilReady();
    await sleep(2_000);
    // About ten empty blocks of 0.2 s, and a fetch only at the start (not after each block).
    expect(scriptCalls).toBeLessThanOrEqual(2);

    const job = await queue.add('wake', {});
    await waitFor(() => (done.includes(job.id) ? true : null), 5_000);
    expect(scriptCalls).toBeGreaterThan(1);
  });
});
