/**
 * Tenant groups through the console's API (…/groups): a viewer pages them by cursor, an
 * operator pauses / resumes one and sets or clears its concurrency and rate limit (bad values
 * are INVALID_INPUT), a viewer's action is 403, actions are audited, unknown groups are 404.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type { ApiError, AuditListResponse, GroupInfo, GroupPage } from '../../lib/api-types';
import { redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const name = uniqueQueueName('groups-api');
const base = `/api/queues/bull/${name}`;
let queue: Queue;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.addBulk(
    ['t1', 't2', 't2', 't3'].map((id) => ({ name: 'j', data: {}, opts: { group: { id } } })),
  );
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
});

async function page(query: string): Promise<GroupPage> {
  const response = await viewer.get(`${base}/groups${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as GroupPage;
}

describe('groups list', () => {
  it('pages groups in id order through the cursor, with their counts', async () => {
    const first = await page('?count=2');
    expect(first.groups.map((group) => [group.id, group.waiting])).toEqual([
      ['t1', 1],
      ['t2', 2],
    ]);
    expect(first.cursor).toBe('t2');
    const second = await page(`?count=2&cursor=${first.cursor}`);
    expect(second.groups.map((group) => group.id)).toEqual(['t3']);
    expect(second.cursor).toBe('');
    expect(first.defaults).toEqual({ concurrency: null, rateLimit: null });
  });
});

describe('group actions', () => {
  it('refuses a viewer with 403', async () => {
    const response = await viewer.post(`${base}/groups/t1/pause`, {});
    expect(response.status).toBe(403);
    expect(((await response.json()) as ApiError).code).toBe('FORBIDDEN');
    expect((await queue.getGroup('t1')).paused).toBe(false);
  });

  it('pauses and resumes a group for an operator, audited', async () => {
    const paused = await operator.post(`${base}/groups/t1/pause`, {});
    expect(paused.status).toBe(200);
    expect(((await paused.json()) as GroupInfo).paused).toBe(true);
    expect((await queue.getGroup('t1')).paused).toBe(true);
    const resumed = await operator.post(`${base}/groups/t1/resume`, {});
    expect(((await resumed.json()) as GroupInfo).paused).toBe(false);

    const audit = (await (
      await operator.get('/api/audit?kind=accepted&pageSize=100')
    ).json()) as AuditListResponse;
    expect(
      audit.entries.find(
        (entry) => entry.action === 'group.pause' && entry.target === `bull:${name}:group:t1`,
      ),
    ).toMatchObject({ actor: OPERATOR.username, outcome: 'ok' });
  });

  it('sets and clears concurrency and rate limit; refuses bad values', async () => {
    const cap = await operator.post(`${base}/groups/t2/concurrency`, { concurrency: 3 });
    expect(((await cap.json()) as GroupInfo).concurrency).toBe(3);
    const limit = await operator.post(`${base}/groups/t2/rate-limit`, {
      rateLimit: { max: 5, duration: 1000 },
    });
    expect(((await limit.json()) as GroupInfo).rateLimit).toEqual({ max: 5, duration: 1000 });
    expect(await queue.getGroup('t2')).toMatchObject({
      concurrency: 3,
      rateLimit: { max: 5, duration: 1000 },
    });

    const zero = await operator.post(`${base}/groups/t2/concurrency`, { concurrency: 0 });
    expect(zero.status).toBe(422);
    expect(((await zero.json()) as ApiError).code).toBe('INVALID_INPUT');
    const badLimit = await operator.post(`${base}/groups/t2/rate-limit`, {
      rateLimit: { max: 5 },
    });
    expect(badLimit.status).toBe(422);

    await operator.post(`${base}/groups/t2/concurrency`, { concurrency: null });
    await operator.post(`${base}/groups/t2/rate-limit`, { rateLimit: null });
    expect(await queue.getGroup('t2')).toMatchObject({ concurrency: null, rateLimit: null });
  });

  it('answers 404 for a group the queue never had', async () => {
    const response = await operator.post(`${base}/groups/nobody/pause`, {});
    expect(response.status).toBe(404);
    const list = await page('?count=50');
    expect(list.groups.map((group) => group.id)).not.toContain('nobody');
  });
});
