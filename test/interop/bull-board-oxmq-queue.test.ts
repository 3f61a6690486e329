/**
 * A Bull-Board set up for bullmq takes an OxMQ Queue unchanged: BullMQAdapter accepts it (it
 * checks the queue's meta version for a bullmq-family name) and its API routes read and act on
 * the queue through OxMQ's bullmq-compatible methods.
 */
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { bullBoard } from '../helpers/bull-board-harness';
import { useCleanup } from '../helpers/cleanup';
import { redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('Bull-Board over an OxMQ Queue', () => {
  it('is accepted by BullMQAdapter and serves counts, listings and actions', async () => {
    const queue = track(new Queue(uniqueQueueName('bbq'), { connection: redisOptions() }));
    await queue.add('now', { x: 1 });
    await queue.add('later', { x: 2 }, { delay: 60_000 });
    // Refused with "a non-BullMQ queue" unless metaValues.version names a bullmq-family library.
    const adapter = new BullMQAdapter(
      queue as unknown as ConstructorParameters<typeof BullMQAdapter>[0],
    );
    expect(await adapter.getJobCounts()).toMatchObject({ waiting: 1, delayed: 1 });
    expect(
      (await adapter.getJobs(['waiting', 'delayed'], 0, 9)).map((job) => job.name).sort(),
    ).toEqual(['later', 'now']);

    const board = bullBoard([adapter]);
    const promoted = await board.call('put', '/api/queues/:queueName/promote', {
      params: { queueName: queue.name },
    });
    expect(promoted.status).toBe(200);
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 2, delayed: 0 });
    const emptied = await board.call('put', '/api/queues/:queueName/empty', {
      params: { queueName: queue.name },
    });
    expect(emptied.status).toBe(200);
    expect(await queue.getWaitingCount()).toBe(0);
  });
});
