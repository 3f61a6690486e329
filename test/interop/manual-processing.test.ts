/**
 * Manual processing across libraries: jobs added by bullmq and finished by an OxMQ worker
 * without a processor (with a retry in between that a bullmq worker then runs), and jobs added by
 * OxMQ and finished by bullmq's manual API.
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName, waitFor } from '../helpers/redis';

const track = useCleanup();
const connection = () => ({ connection: redisOptions() });

describe('manual processing interop', () => {
  it('bullmq job → OxMQ moveToFailed (backoff) → bullmq worker completes the retry', async () => {
    const name = uniqueQueueName('manual-b2n');
    const bullQueue = track(new BullQueue(name, connection()));
    const redis = track(rawClient());
    const added = await bullQueue.add(
      'x',
      { v: 1 },
      { attempts: 2, backoff: { type: 'fixed', delay: 100 } },
    );
    const manual = track(new Worker(name, null, connection()));
    const job = (await manual.getNextJob('oxmq-token'))!;
    expect(job.id).toBe(added.id);
    await job.moveToFailed(new Error('first try'), 'oxmq-token');
    expect(await redis.hget(`bull:${name}:${added.id}`, 'atm')).toBe('1');
    expect(await bullQueue.getJobState(added.id!)).toBe('delayed');
    await manual.close();

    const seenAttempts: number[] = [];
    track(
      new BullWorker(
        name,
        async (running) => {
          seenAttempts.push(running.attemptsMade);
          return 'second try';
        },
        connection(),
      ),
    );
    await waitFor(async () => (await bullQueue.getJobState(added.id!)) === 'completed');
    expect(seenAttempts).toEqual([1]);
    const hash = await redis.hgetall(`bull:${name}:${added.id}`);
    expect(hash.atm).toBe('2');
    expect(hash.returnvalue).toBe('"second try"');
  });

  it("OxMQ jobs → bullmq's manual API, the next job fetched along", async () => {
    const name = uniqueQueueName('manual-n2b');
    const queue = track(new Queue(name, connection()));
    const first = await queue.add('a', { n: 1 });
    const second = await queue.add('b', { n: 2 });
    const bull = track(new BullWorker(name, null, connection()));
    const job = (await bull.getNextJob('bull-token'))!;
    expect(job.id).toBe(first.id);
    const next = (await job.moveToCompleted('one', 'bull-token', true)) as unknown[];
    expect(next[1]).toBe(second.id);
    expect((await queue.getJob(first.id))!.returnvalue).toBe('one');
    expect(await queue.getJobState(second.id)).toBe('active');
  });
});
