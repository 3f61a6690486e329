/**
 * The safe repairs on a wait list longer than the windows they search (LIST_END_WINDOW, 10,000
 * entries from each end: lua/includes/listSearch.lua): a dangling id near the tail is removed,
 * one deep in the middle is left with a skip reason naming the way out (queue.remove, which
 * accepts the one scan), and a finished job that a long list might hold deeper inside is not
 * placed (docs/integrity.md, "Repairs").
 */
import { describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { checkQueueIntegrityToEnd, repairIntegrityFindings } from 'oxmq/admin';
import { useCleanup } from '../../helpers/cleanup';
import { rawClient, redisOptions, uniqueQueueName } from '../../helpers/redis';
import { queueKey } from '../../helpers/redis-state';

const track = useCleanup();
const JOBS = 30_000;
const CHUNK = 1_000;

describe('safe repairs on a long wait list', () => {
  it('repairs near the ends and skips, with its reason, what lies deep inside', async () => {
    const name = uniqueQueueName('repair-long');
    const redis = track(rawClient());
    const queue = track(new Queue(name, { connection: redisOptions() }));
    const key = (suffix: string) => queueKey(name, suffix);
    const ref = { prefix: 'bull', name };
    const ids: string[] = [];
    for (let from = 0; from < JOBS; from += CHUNK) {
      const jobs = await queue.addBulk(
        Array.from({ length: CHUNK }, (_, i) => ({ name: `j${from + i}`, data: {} })),
      );
      ids.push(...jobs.map((job) => job.id!));
    }
    // The wait list's tail is the first job added: ids[5] is 5 entries from it, ids[15000] is
    // 15,000 entries from the tail and 14,999 from the head.
    const nearTail = ids[5]!;
    const deep = ids[15_000]!;
    const finished = ids[7]!;
    await redis.del(key(nearTail), key(deep));
    await redis.lrem(key('wait'), -1, finished);
    await redis.hset(key(finished), 'finishedOn', Date.now(), 'returnvalue', '1');
    const report = await checkQueueIntegrityToEnd(redis, ref);
    expect(report.counts).toMatchObject({ 'member-without-hash': 2, 'hash-without-state': 1 });

    const repairs = await repairIntegrityFindings(redis, ref, report);
    const byId = Object.fromEntries(repairs.map((repair) => [repair.jobId, repair]));
    expect(byId[nearTail]).toMatchObject({ applied: true, action: expect.stringMatching(/wait$/) });
    expect(byId[deep]).toMatchObject({
      applied: false,
      skipped: expect.stringMatching(/^deep inside a long list \(wait\).*queue\.remove\(id\)/),
    });
    // The finished job is in no list, but nothing short of a scan of wait could tell.
    expect(byId[finished]).toMatchObject({
      applied: false,
      skipped: expect.stringMatching(/^deep inside a long list \(wait\)/),
    });
    expect(await redis.lpos(key('wait'), nearTail)).toBeNull();
    expect(await redis.lpos(key('wait'), deep)).toBe(JOBS - 1 - 15_000);
    expect(await redis.zscore(key('completed'), finished)).toBeNull();
    expect(await redis.llen(key('wait'))).toBe(JOBS - 2);

    // The way out the skip names: one explicit removal of that id.
    await queue.remove(deep);
    expect(await redis.lpos(key('wait'), deep)).toBeNull();
    expect(await redis.llen(key('wait'))).toBe(JOBS - 3);
    const after = await checkQueueIntegrityToEnd(redis, ref);
    expect(after.counts['member-without-hash']).toBe(0);
    expect(after.samples['hash-without-state']).toEqual([finished]);
  }, 120_000);
});
