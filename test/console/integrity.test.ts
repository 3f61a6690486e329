/**
 * The integrity route against `next start` on a real Redis (docs/integrity.md, "Console page"):
 * GET answers one checker call for admins only (clean queue, then a broken one, resumable by
 * cursor); POST, the safe repairs, is refused to an operator and to a cross-origin request, and
 * for an admin repairs, answers each repair, and is audited.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import {
  integrityCheckResponseSchema,
  integrityRepairResponseSchema,
} from '../../lib/http/integrity';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { queueKey } from '../helpers/redis-state';
import { signIn, type ConsoleClient } from './console-client';
import { ADMIN, OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('integrity');
const url = `/api/queues/bull/${name}/integrity`;
let queue: Queue;
let admin: ConsoleClient;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.waitUntilReady();
  [admin, operator, viewer] = await Promise.all([
    signIn(baseUrl, ADMIN),
    signIn(baseUrl, OPERATOR),
    signIn(baseUrl, VIEWER),
  ]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

async function check(query = '') {
  const response = await admin.get(`${url}${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return integrityCheckResponseSchema.parse(await response.json());
}

describe('GET /api/queues/:prefix/:name/integrity', () => {
  it('answers a clean queue, then the finding of a broken one, step by step with the cursor', async () => {
    const a = await queue.add('a', {});
    await queue.add('b', {});
    const clean = await check();
    expect(clean.report).toMatchObject({ clean: true });
    expect(clean.report.cursor).toBeUndefined();
    expect(clean.repairable).toContain('member-without-hash');
    expect(clean.repairable).not.toContain('multiple-states');

    await redis.del(queueKey(name, a.id!));
    const broken = await check();
    expect(broken.report.clean).toBe(false);
    expect(broken.report.counts['member-without-hash']).toBe(1);
    expect(broken.report.samples['member-without-hash']).toEqual([a.id]);

    // A budget of one walks in several calls, each resuming from the last one's cursor.
    let part = await check('?budget=1');
    let calls = 1;
    let found = part.report.counts['member-without-hash']!;
    while (part.report.cursor) {
      part = await check(`?budget=1&cursor=${encodeURIComponent(part.report.cursor)}`);
      found += part.report.counts['member-without-hash']!;
      calls += 1;
    }
    expect(calls).toBeGreaterThan(2);
    expect(found).toBe(1);
    await redis.lrem(queueKey(name, 'wait'), 0, a.id!);
  });

  it('refuses non-admins and a malformed cursor', async () => {
    expect((await viewer.get(url)).status).toBe(403);
    expect((await operator.get(url)).status).toBe(403);
    const bad = await admin.get(`${url}?cursor=nope`);
    expect(bad.status).toBe(422);
    expect((await admin.get(`/api/queues/bull/${name}-missing/integrity`)).status).toBe(404);
  });
});

describe('POST /api/queues/:prefix/:name/integrity', () => {
  it('is refused to an operator and to a cross-origin admin request, writing nothing', async () => {
    const job = await queue.add('gone', {});
    await redis.del(queueKey(name, job.id!));
    const forbidden = await operator.post(url, {});
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()) as { code: string }).toMatchObject({ code: 'FORBIDDEN' });
    const crossOrigin = await admin.post(url, {}, { origin: 'https://evil.example' });
    expect(crossOrigin.status).toBe(403);
    expect(await redis.lpos(queueKey(name, 'wait'), job.id!)).not.toBeNull();
    await redis.lrem(queueKey(name, 'wait'), 0, job.id!);
  });

  it('repairs the safe findings for an admin, lists each repair, and is audited', async () => {
    const gone = await queue.add('gone', {});
    const twice = await queue.add('twice', {});
    await redis.del(queueKey(name, gone.id!));
    await redis.zadd(queueKey(name, 'completed'), Date.now(), twice.id!);

    const response = await admin.post(url, {});
    expect(response.status, await response.clone().text()).toBe(200);
    const step = integrityRepairResponseSchema.parse(await response.json());
    expect(step.report.counts).toMatchObject({ 'member-without-hash': 1, 'multiple-states': 1 });
    expect(step.repairs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'member-without-hash', jobId: gone.id, applied: true }),
        {
          code: 'multiple-states',
          jobId: twice.id,
          action: 'none',
          applied: false,
          skipped: 'report-only',
        },
      ]),
    );
    expect(await redis.lpos(queueKey(name, 'wait'), gone.id!)).toBeNull();
    const after = await check();
    expect(after.report.counts['member-without-hash']).toBe(0);
    expect(after.report.counts['multiple-states']).toBe(1);
    // The report-only finding is untouched: still in both states.
    expect(await redis.lpos(queueKey(name, 'wait'), twice.id!)).not.toBeNull();
    expect(await redis.zscore(queueKey(name, 'completed'), twice.id!)).not.toBeNull();

    const entries = (await redis.xrevrange('oxmq:audit', '+', '-', 'COUNT', 20)).map(
      ([, fields]) => {
        const record: Record<string, string> = {};
        for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
        return record;
      },
    );
    const mine = entries.filter((entry) => entry.target === `bull:${name}`);
    expect(mine.find((entry) => entry.action === 'queue.integrity.repair')).toMatchObject({
      actor: ADMIN.username,
      outcome: 'ok',
    });
    const detail = mine.find((entry) => entry.action === 'queue.integrity.repaired');
    expect(JSON.parse(detail!.params!)).toMatchObject({
      applied: 1,
      repairs: [{ code: 'member-without-hash', jobId: gone.id }],
    });
    expect(
      entries.some(
        (entry) => entry.action === 'queue.integrity.repair' && entry.actor === OPERATOR.username,
      ),
    ).toBe(false);
  });
});
