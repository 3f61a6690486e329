import { describe, expect, it } from 'vitest';
import { Queue, Worker, type Job } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();

describe('worker basics', () => {
  it('processes a job and stores its return value', async () => {
    const name = uniqueQueueName();
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const added = await queue.add('hello', { x: 1 });
    const seen: unknown[] = [];
    const worker = track(
      new Worker(
        name,
        async (job: Job<{ x: number }>) => {
          seen.push(job.data);
          return { doubled: job.data.x * 2 };
        },
        { connection: redisOptions() },
      ),
    );
    const completed = new Promise<[Job, unknown]>((resolve) =>
      worker.on('completed', (job, result) => resolve([job, result])),
    );
    const [job, result] = await completed;
    expect(job.id).toBe(added.id);
    expect(result).toEqual({ doubled: 2 });
    expect(seen).toEqual([{ x: 1 }]);
    const redis = track(rawClient());
    const hash = await redis.hgetall(`bull:${name}:${added.id}`);
    expect(hash.returnvalue).toBe('{"doubled":2}');
    expect(hash.atm).toBe('1');
    expect(hash.ats).toBe('1');
    expect(await redis.zscore(`bull:${name}:completed`, added.id)).toBe(hash.finishedOn);
  });

  it('keeps FIFO order with concurrency 1', async () => {
    const name = uniqueQueueName();
    const queue = track(new Queue(name, { connection: redisOptions() }));
    for (let i = 0; i < 10; i++) await queue.add('n', { i });
    const order: number[] = [];
    track(
      new Worker(name, async (job) => void order.push(job.data.i), { connection: redisOptions() }),
    );
    await waitFor(() => order.length === 10);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
