/**
 * The audit log's hardening against `next start`: request bodies are redacted before they are
 * written, and refused requests (anyone signed in can make them) go to a stream of their own
 * through a per-actor throttle, so they can never push real actions out of the history.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type { AuditListResponse } from '../../lib/api-types';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { signIn, type ConsoleClient } from './console-client';
import { OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const redis = rawClient();
const name = uniqueQueueName('audit');
let queue: Queue;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  queue = new Queue(name, { connection: redisOptions() });
  await queue.waitUntilReady();
  [operator, viewer] = await Promise.all([signIn(baseUrl, OPERATOR), signIn(baseUrl, VIEWER)]);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
});

async function auditPage(kind: 'accepted' | 'refused', pageSize = 100) {
  const response = await operator.get(`/api/audit?kind=${kind}&pageSize=${pageSize}`);
  expect(response.status).toBe(200);
  return (await response.json()) as AuditListResponse;
}

describe('audit log hardening', () => {
  it('redacts the secrets of a request body before writing it', async () => {
    const secret = 'sk-live-0123456789';
    const response = await operator.post(`/api/queues/bull/${name}/jobs`, {
      name: 'charge',
      data: { apiKey: secret, note: 'kept' },
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const [entry] = (await auditPage('accepted', 1)).entries;
    expect(entry).toMatchObject({
      action: 'job.add',
      params: { body: { data: { apiKey: '[redacted]', note: 'kept' } } },
    });
    // Nowhere in the stream either, whatever reads it.
    const raw = await redis.xrevrange('oxmq:audit', '+', '-', 'COUNT', 5);
    expect(JSON.stringify(raw)).not.toContain(secret);
  });

  it('keeps a viewer’s flood of refused requests out of the actions and throttles it', async () => {
    await operator.post(`/api/queues/bull/${name}/pause`, {});
    await operator.post(`/api/queues/bull/${name}/resume`, {});
    const accepted = (await auditPage('accepted', 5)).entries.map((entry) => entry.id);
    const refusedBefore = (await auditPage('refused')).entries.filter(
      (entry) => entry.actor === VIEWER.username,
    ).length;

    const flood = 40;
    for (let i = 0; i < flood; i += 1) {
      const refused = await viewer.post(`/api/queues/bull/${name}/pause`, {});
      expect(refused.status).toBe(403);
    }
    expect(await queue.isPaused()).toBe(false);
    // The actions are untouched: the same newest entries, in the same order.
    expect((await auditPage('accepted', 5)).entries.map((entry) => entry.id)).toEqual(accepted);
    // At most one minute's allowance of the flood reached the refused stream.
    const written =
      (await auditPage('refused')).entries.filter((entry) => entry.actor === VIEWER.username)
        .length - refusedBefore;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThanOrEqual(10);
  });
});
