/**
 * The overview's failure-spike problem counts failures from the timing history every OxMQ
 * worker writes (engine/admin/redis/history-sparklines.ts), so it is raised for a queue whose
 * workers keep no bullmq metrics; with neither, nothing counts failures and nothing is raised.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { getQueueOverview } from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

async function failJobs(name: string, count: number, timingHistory: boolean): Promise<void> {
  const queue = track(new Queue(name, { connection: redisOptions() }));
  let failed = 0;
  const worker = new Worker(
    name,
    async () => {
      throw new Error('downstream is down');
    },
    { connection: redisOptions(), timingHistory: timingHistory ? {} : false },
  );
  worker.on('failed', () => (failed += 1));
  await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'call', data: { i } })));
  await waitFor(() => failed === count);
  // Closing flushes the worker's counts to Redis.
  await worker.close();
}

const problemKinds = async (name: string) => {
  const redis = track(rawClient());
  return (await getQueueOverview(redis, 'bull', name)).problems.map((problem) => problem.kind);
};

describe('failure spike', () => {
  it('is raised from the timing history, without the metrics option', async () => {
    const name = uniqueQueueName('spike-history');
    await failJobs(name, 6, true);
    expect(await problemKinds(name)).toContain('failure-spike');
  });

  it('is not raised when no worker counts failures', async () => {
    const name = uniqueQueueName('spike-none');
    await failJobs(name, 6, false);
    expect(await problemKinds(name)).not.toContain('failure-spike');
  });
});
