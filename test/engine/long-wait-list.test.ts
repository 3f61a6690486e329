/**
 * A wait list longer than both end windows of lua/includes/listSearch.lua (10,000 entries from
 * each end): removal, priority changes and getState look near the ends first and only scan
 * as far as the job, and moves over many jobs take at most DEFAULTS.chunkSize per script call
 * (docs/reliability.md, Large backlogs).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'oxmq';
import { DEFAULTS } from 'oxmq/internals';
import type { Redis } from 'ioredis';
import { rawClient, uniqueQueueName } from '../helpers/redis';
import { countScriptCalls } from '../helpers/script-calls';

/** More than the two end windows together. */
const LONG = 25_000;

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function fill(queue: Queue, count: number, opts = {}): Promise<void> {
  for (let first = 0; first < count; first += 1_000) {
    const size = Math.min(1_000, count - first);
    await queue.addBulk(
      Array.from({ length: size }, (_, i) => ({ name: 'j', data: { i: first + i }, opts })),
    );
  }
}

describe('a wait list longer than the search windows', () => {
  let redis: Redis;
  let queue: Queue;
  beforeAll(async () => {
    redis = rawClient();
    queue = new Queue(uniqueQueueName('long-wait'), { connection: redis });
    await fill(queue, LONG);
    return async () => {
      await queue.close();
      await redis.quit();
    };
  }, 60_000);

  const at = async (index: number) => (await redis.lindex(queue.keys.wait, index))!;
  const inWait = async (id: string) => (await redis.lpos(queue.keys.wait, id)) !== null;

  it('removes jobs near the head, near the tail and deep inside', async () => {
    const before = await redis.llen(queue.keys.wait);
    const ids = [await at(100), await at(-100), await at(Math.floor(before / 2))];
    for (const id of ids) await queue.remove(id);
    for (const id of ids) {
      expect(await inWait(id)).toBe(false);
      expect(await queue.getJob(id)).toBeUndefined();
    }
    expect(await redis.llen(queue.keys.wait)).toBe(before - 3);
  });

  it('changes the priority of jobs near the tail and deep inside', async () => {
    const before = await redis.llen(queue.keys.wait);
    const ids = [await at(-50), await at(Math.floor(before / 2))];
    for (const id of ids) await (await queue.getJob(id))!.changePriority({ priority: 4 });
    for (const id of ids) {
      expect(await inWait(id)).toBe(false);
      expect(await queue.getJobState(id)).toBe('prioritized');
    }
    expect(await redis.llen(queue.keys.wait)).toBe(before - 2);
  });

  it('answers waiting for jobs anywhere in the list, unknown for ids without a job', async () => {
    const length = await redis.llen(queue.keys.wait);
    for (const index of [0, 9_999, 10_000, Math.floor(length / 2), -10_001, -1]) {
      expect(await queue.getJobState(await at(index))).toBe('waiting');
    }
    expect(await queue.getJobState('no-such-job')).toBe('unknown');
  });

  it('takes a job hash in no state for a job deep in the list (the list is not scanned)', async () => {
    // An orphaned hash (the integrity checker's finding, docs/integrity.md) cannot be told from a
    // job deep inside a long wait list without a scan of the whole list.
    await redis.hset(`${queue.keys.base}orphan`, 'name', 'j', 'data', '{}', 'timestamp', '1');
    expect(await queue.getJobState('orphan')).toBe('waiting');
    await redis.del(`${queue.keys.base}orphan`);
  });
});

describe('a short wait list', () => {
  it('is searched whole: a job hash in no state is unknown', async () => {
    const redis = rawClient();
    const queue = new Queue(uniqueQueueName('short-wait'), { connection: redis });
    open.push(queue, { close: () => redis.quit() });
    await fill(queue, 50);
    await redis.hset(`${queue.keys.base}orphan`, 'name', 'j', 'data', '{}', 'timestamp', '1');
    expect(await queue.getJobState('orphan')).toBe('unknown');
    expect(await queue.getJobState(String(25))).toBe('waiting');
  });
});

describe('moves over many jobs', () => {
  it('promoteJobs takes at most DEFAULTS.chunkSize jobs per script call, whatever the count', async () => {
    const redis = rawClient();
    const queue = new Queue(uniqueQueueName('chunks'), { connection: redis });
    open.push(queue, { close: () => redis.quit() });
    const total = DEFAULTS.chunkSize * 2 + 100;
    await fill(queue, total, { delay: 60_000 });
    const scripts = countScriptCalls(redis);
    await queue.promoteJobs({ count: 10_000 });
    expect(scripts.count).toBe(3);
    expect(await queue.getDelayedCount()).toBe(0);
    expect(await queue.getWaitingCount()).toBe(total);
  });

  it('a fetch promotes at most 250 due delayed jobs; the next fetch the next ones', async () => {
    const redis = rawClient();
    const queue = new Queue(uniqueQueueName('due'), { connection: redis });
    open.push(queue, { close: () => redis.quit() });
    await fill(queue, 600, { delay: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const worker = new Worker(queue.name, null, { connection: redis });
    open.push(worker);
    expect(await worker.getNextJob('token-1')).toBeDefined();
    expect(await queue.getDelayedCount()).toBe(350);
    expect(await worker.getNextJob('token-2')).toBeDefined();
    expect(await queue.getDelayedCount()).toBe(100);
  });
});
