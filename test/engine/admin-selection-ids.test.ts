/**
 * The admin layer's own guard on ids: an id such as `1:processed` names another key of a job
 * (its lock, logs, children's records) and `meta` a key of the queue, so selections skip them
 * and lookups find nothing, whatever route passed them on; a job scheduler's job, whose id is
 * `repeat:<scheduler id>:<millis>`, is a job like any other.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { actOnSelection, jobKeyKind } from 'oxmq/admin';
import { findJob } from 'oxmq/internals';
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

  it("takes a job scheduler's job for a job, and none of the queue's other keys", async () => {
    const name = uniqueQueueName('scheduler-ids');
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const redis = track(rawClient());
    const plain = await queue.add('plain', {});
    // A yearly pattern: its pending job waits in delayed, where a promotion applies.
    await queue.upsertJobScheduler('yearly', { pattern: '0 0 1 1 *' }, { name: 'tick' });
    const [pending] = await queue.getJobs(['delayed']);
    expect(pending?.id).toMatch(/^repeat:yearly:\d+$/);
    await redis.set(`bull:${name}:${plain.id}:lock`, 'token');
    await redis.rpush(`bull:${name}:${plain.id}:logs`, 'a line');

    const kind = (id: string) => jobKeyKind(redis, 'bull', name, id);
    expect(await kind(pending!.id)).toBe('job');
    expect(await kind(plain.id)).toBe('job');
    expect(await kind('no-such-job')).toBe('missing');
    expect(await kind('repeat:yearly:1')).toBe('missing');
    for (const id of ['meta', 'events', 'repeat', 'id'])
      expect(await kind(id), id).toBe('not-a-job');
    for (const id of [`${plain.id}:lock`, `${plain.id}:logs`, 'repeat:yearly', 'a:b:c:d'])
      expect(await kind(id), id).toBe('not-a-job');

    expect((await findJob(redis, 'bull', name, pending!.id))?.name).toBe('tick');
    expect(await findJob(redis, 'bull', name, 'meta')).toBeNull();
    const promoted = await actOnSelection(redis, 'bull', name, 'promote', [pending!.id]);
    expect(promoted).toEqual({ action: 'promote', done: [pending!.id], skipped: [] });
    expect(await queue.getJobState(pending!.id)).toBe('waiting');
    const removed = await actOnSelection(redis, 'bull', name, 'remove', ['meta', 'events']);
    expect(removed.skipped).toEqual(['meta', 'events']);
    expect(await redis.exists(`bull:${name}:meta`, `bull:${name}:events`)).toBe(2);
  });
});
