/** engine/admin/find-job-everywhere.ts: one id looked up across queues, on a real Redis. */
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { findJobEverywhere } from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();
const client = rawClient();
afterAll(() => client.quit());

describe('finding a job id in every queue', () => {
  it('answers each queue that holds a job with that id, with its name and state', async () => {
    const [a, b, c] = ['find-a', 'find-b', 'find-c'].map((label) => uniqueQueueName(label));
    const qa = track(new Queue(a!, { connection: redisOptions() }));
    const qb = track(new Queue(b!, { connection: redisOptions() }));
    track(new Queue(c!, { connection: redisOptions() }));
    await qa.add('first', {}, { jobId: 'order-7' });
    await qb.add('second', {}, { jobId: 'order-7', delay: 60_000 });
    // A key that is no job hash (a job's logs) never counts as the job.
    await client.rpush(`bull:${c}:order-7:logs`, 'x');
    const queues = [a!, b!, c!].map((name) => ({ prefix: 'bull', name }));
    const found = await findJobEverywhere(client, queues, 'order-7');
    expect(found).toEqual([
      { prefix: 'bull', queue: a, id: 'order-7', jobName: 'first', state: 'waiting' },
      { prefix: 'bull', queue: b, id: 'order-7', jobName: 'second', state: 'delayed' },
    ]);
    expect(await findJobEverywhere(client, queues, 'order-8')).toEqual([]);
    // `id:logs` would name a job's sub-key, not a job.
    expect(await findJobEverywhere(client, queues, 'order-7:logs')).toEqual([]);
  });
});
