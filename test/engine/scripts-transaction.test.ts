import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('addBulk and the script cache', () => {
  it('works as the very first call of a queue and after SCRIPT FLUSH', async () => {
    const redis = track(rawClient());
    await redis.script('FLUSH');
    const queue = track(new Queue(uniqueQueueName(), { connection: redisOptions() }));
    const first = await queue.addBulk([
      { name: 'a', data: {} },
      { name: 'b', data: {} },
    ]);
    expect(first.map((job) => job.id)).toEqual(['1', '2']);

    await redis.script('FLUSH');
    const second = await queue.addBulk([{ name: 'c', data: {} }]);
    expect(second.map((job) => job.id)).toEqual(['3']);
    expect(await redis.lrange(`bull:${queue.name}:wait`, 0, -1)).toEqual(['3', '2', '1']);
  });
});
