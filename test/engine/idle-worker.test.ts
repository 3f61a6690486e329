/**
 * An idle worker's cost on Redis: it blocks on the marker once per drainDelay and fetches only
 * when a marker wakes it (or every idleRecheckMs as a safety net), instead of running the fetch
 * script after every empty block. Watched with MONITOR, filtered on this test's queue name.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../engine';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, sleep, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

/** Every command Redis runs that names the queue, as MONITOR prints it, while it is watched. */
async function watchQueue(queueName: string) {
  const monitor = await new Redis(redisOptions()).monitor();
  const lines: string[] = [];
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.some((arg) => arg.includes(queueName))) lines.push(args.join(' ').toLowerCase());
  });
  return {
    count: (command: string) => lines.filter((line) => line.startsWith(command)).length,
    stop: () => monitor.disconnect(),
  };
}

describe('an idle worker', () => {
  it('blocks again after an empty drainDelay instead of fetching, and wakes on a marker', async () => {
    const name = uniqueQueueName('idle');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    await queue.waitUntilReady();
    const watch = await watchQueue(name);
    try {
      const done: string[] = [];
      const worker = track(
        new Worker(name, async (job) => void done.push(job.id), {
          connection: redisOptions(),
          drainDelay: 0.2,
        }),
      );
      await worker.waitUntilReady();
      await sleep(2_000);
      // About ten blocks of 0.2 s, and only the first fetch (none after each empty block).
      expect(watch.count('bzpopmin')).toBeGreaterThanOrEqual(5);
      expect(watch.count('evalsha')).toBeLessThanOrEqual(2);

      const job = await queue.add('wake', {});
      await waitFor(() => (done.includes(job.id) ? true : null), 5_000);
    } finally {
      watch.stop();
    }
  });
});
