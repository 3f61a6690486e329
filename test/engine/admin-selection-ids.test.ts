/**
 * The admin layer's own guard on selections: an id with ':' names another key of a job (its
 * lock, logs, children's records), so it is skipped whatever route passed it on.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../engine';
import { actOnSelection } from '../../engine/admin';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('actOnSelection', () => {
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
});
