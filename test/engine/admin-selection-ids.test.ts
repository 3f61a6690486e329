/**
 * The admin layer's own guard on ids: an id with ':' names another key of a job (its lock,
 * logs, children's records), so selections skip it and lookups find nothing, whatever route
 * passed it on.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { actOnSelection, findJob } from 'oxmq/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('ids with ":" in the admin layer', () => {
  it('skips an id with ":" and leaves the key it would name alone', async () => {
    const name = uniqueQueueName('selection-ids');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const redis = track(rawClient());
    const job = await queue.add('parent', {});
    const record = `bull:${name}:${job.id}:processed`;
    await redis.hset(record, 'data', '{}', 'name', 'looks like a job', 'timestamp', '1');
    const result = await actOnSelection(redis, 'bull', name, 'remove', [`${job.id}:processed`]);
    expect(result).toEqual({ action: 'remove', done: [], skipped: [`${job.id}:processed`] });
    expect(await redis.exists(record)).toBe(1);
  });

  it('findJob answers no job for an id with ":" rather than reading that key', async () => {
    const name = uniqueQueueName('find-ids');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const redis = track(rawClient());
    const job = await queue.add('parent', {});
    await redis.hset(
      `bull:${name}:${job.id}:processed`,
      'data',
      '{}',
      'name',
      'x',
      'timestamp',
      '1',
    );
    expect(await findJob(redis, 'bull', name, `${job.id}:processed`)).toBeNull();
    expect((await findJob(redis, 'bull', name, job.id))?.name).toBe('parent');
  });
});
