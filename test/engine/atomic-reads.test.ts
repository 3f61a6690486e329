/**
 * readAtomically (engine/backend/redis/atomic-reads.ts) answers a batch of reads as a MULTI's exec
 * would: one [error, reply] per command, a failing command alone in error; and it runs reads
 * only (lua/readTogether-1.lua refuses any other command before it reads anything).
 */
import { describe, expect, it } from 'vitest';
import { readAtomically } from 'oxmq/internals';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, uniqueQueueName } from '../helpers/redis';

const track = useCleanup();

describe('readAtomically', () => {
  it('answers each read in order, nulls and a wrong-type error in place', async () => {
    const redis = track(rawClient());
    const base = `bull:${uniqueQueueName('atomic-reads')}:`;
    await redis.rpush(`${base}list`, 'a', 'b', 'c');
    await redis.hset(`${base}hash`, 'f', 'v', 'g', 'w');
    await redis.set(`${base}string`, 'text');
    const replies = await readAtomically(redis, base, [
      ['lrange', `${base}list`, 0, -1],
      ['hgetall', `${base}hash`],
      ['hmget', `${base}hash`, 'f', 'missing'],
      ['llen', `${base}string`],
      ['get', `${base}none`],
      ['zscore', `${base}none`, 'x'],
      ['lpos', `${base}list`, 'c'],
    ]);
    expect(replies.slice(0, 3)).toEqual([
      [null, ['a', 'b', 'c']],
      [null, ['f', 'v', 'g', 'w']],
      [null, ['v', null]],
    ]);
    const [wrongType, value] = replies[3]!;
    expect(wrongType?.message).toMatch(/^WRONGTYPE/);
    expect(value).toBeNull();
    expect(replies.slice(4)).toEqual([
      [null, null],
      [null, null],
      [null, 2],
    ]);
    expect(await readAtomically(redis, base, [])).toEqual([]);
  });

  it('refuses a command that is not a read, and runs none of the batch', async () => {
    const redis = track(rawClient());
    const base = `bull:${uniqueQueueName('atomic-reads')}:`;
    const write = ['set', `${base}written`, 'x'] as unknown as ['get', string];
    await expect(readAtomically(redis, base, [['get', `${base}written`], write])).rejects.toThrow(
      /not a read command: set/,
    );
    expect(await redis.exists(`${base}written`)).toBe(0);
  });
});
