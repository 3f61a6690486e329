/**
 * Notifications from real consoles: two `next start` processes on one Redis, each starting its
 * notifier from instrumentation.ts with the OXMQ_NOTIFY_* settings, and a webhook receiver of
 * the test's own. A problem is sent once when it starts and once when it clears, whichever
 * console holds the lease; a 500 is retried; a muted queue sends nothing until unmuted; an admin
 * sends a test notification (operators and viewers may not); every delivery is in the audit log
 * and no answer shows the webhook's URL. Waits are for requests and Redis state, never a clock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Queue } from 'oxmq';
import type { AuditListResponse } from '../../lib/api-types';
import {
  notificationsStatusSchema,
  testNotificationResponseSchema,
} from '../../lib/http/notifications';
import { rawClient, redisOptions, waitFor } from '../helpers/redis';
import {
  notificationOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';
import { signIn, type ConsoleClient } from './console-client';
import { startConsole, type ConsoleServer } from './console-server';
import { ADMIN, consoleEnv, OPERATOR, VIEWER } from './users';

const prefix = `ntfc-${randomUUID().slice(0, 8)}`;
const SECRET_PATH = '/hook/T000-secret-webhook-path';
const redis = rawClient();
const queues: Queue[] = [];
let receiver: WebhookReceiver;
let consoles: ConsoleServer[] = [];
let admin: ConsoleClient;
let operator: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  receiver = await startWebhookReceiver(SECRET_PATH);
  const env = consoleEnv(inject('redisPort'), {
    OXMQ_PREFIXES: prefix,
    OXMQ_NOTIFY_WEBHOOKS: JSON.stringify([{ url: receiver.url, name: 'ci hook' }]),
    OXMQ_NOTIFY_INTERVAL_MS: '250',
    OXMQ_NOTIFY_PAUSED_SECONDS: '1',
    OXMQ_NOTIFY_MAX_ATTEMPTS: '3',
    OXMQ_NOTIFY_RETRY_MS: '100',
  });
  consoles = await Promise.all([startConsole(env), startConsole(env)]);
  const url = consoles[0]!.url;
  [admin, operator, viewer] = await Promise.all([
    signIn(url, ADMIN),
    signIn(url, OPERATOR),
    signIn(url, VIEWER),
  ]);
});

afterAll(async () => {
  await Promise.all(consoles.map((server) => server.stop()));
  for (const queue of queues) {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
  }
  await receiver?.close();
  await redis.quit();
});

function newQueue(name: string): Queue {
  const queue = new Queue(name, { connection: redisOptions(), prefix });
  queues.push(queue);
  return queue;
}

/** Resolves once `n` more notifier rounds were claimed, by either console. */
async function roundsPass(n: number): Promise<void> {
  const turnKey = `{${prefix}:oxmq:lease:notifier}:turn`;
  const start = Number(await redis.get(turnKey));
  await waitFor(async () => Number(await redis.get(turnKey)) >= start + n, 30_000, 50);
}

async function auditOf(client: ConsoleClient): Promise<AuditListResponse['entries']> {
  const response = await client.get('/api/audit?kind=accepted&pageSize=100');
  expect(response.status).toBe(200);
  return ((await response.json()) as AuditListResponse).entries;
}

const output = () => consoles.map((server) => server.output).join('\n');

describe('notifications from two consoles', () => {
  it('sends a no-worker problem once when it starts and once when it clears', async () => {
    const queue = newQueue('emails');
    await queue.add('job', { password: 'S-console-ntf' });
    const started = await receiver.next(notificationOf('problem.started', 'emails', 'no-worker'));
    expect(started.body).toMatchObject({
      source: 'oxmq',
      prefix,
      severity: 'critical',
      message: '1 job waits but no worker is connected.',
    });
    // Each test console has its own NEXTAUTH_URL (one deployment would share one).
    expect(consoles.map((server) => `${server.url}/queues/${prefix}/emails`)).toContain(
      started.body.link,
    );
    await roundsPass(4);
    await queue.drain();
    const cleared = await receiver.next(notificationOf('problem.cleared', 'emails'));
    expect(cleared.body.id).toBe(started.body.id);
    await roundsPass(4);
    expect(receiver.matching(notificationOf('problem.started', 'emails'))).toHaveLength(1);
    expect(receiver.matching(notificationOf('problem.cleared', 'emails'))).toHaveLength(1);
    expect(JSON.stringify(receiver.requests)).not.toContain('S-console-ntf');

    const audit = await auditOf(admin);
    const sent = audit.filter((entry) => entry.target === `${prefix}:emails`);
    expect(sent.map((entry) => [entry.actor, entry.action, entry.outcome]).reverse()).toEqual([
      ['system:notifier', 'notification.started', 'ok'],
      ['system:notifier', 'notification.cleared', 'ok'],
    ]);
  });

  it('retries a webhook that answers 500, then delivers', async () => {
    receiver.answerNext(500);
    const queue = newQueue('flaky');
    await queue.add('job', {});
    await receiver.next((r) => notificationOf('problem.started', 'flaky')(r) && r.status === 200);
    const tries = receiver.matching(notificationOf('problem.started', 'flaky'));
    expect(tries.map((r) => r.status)).toEqual([500, 200]);
    expect(output()).toMatch(/flaky:no-worker:\d+ to ci hook: attempt 1 of 3 failed \(HTTP 500\)/);
  });

  it('a queue an operator muted sends nothing until unmuted; a viewer may not mute', async () => {
    const queue = newQueue('quiet');
    await queue.setGlobalConcurrency(5);
    const path = `/api/queues/${prefix}/quiet/notifications`;
    expect((await viewer.post(`${path}/mute`)).status).toBe(403);
    const muted = await operator.post(`${path}/mute`);
    expect(muted.status).toBe(200);
    expect(await muted.json()).toMatchObject({ enabled: true, muted: { by: OPERATOR.username } });

    await queue.add('job', {});
    await queue.pause();
    await roundsPass(8);
    expect(receiver.matching((r) => r.body.queue === 'quiet')).toEqual([]);

    expect((await operator.post(`${path}/unmute`)).status).toBe(200);
    await receiver.next(notificationOf('problem.started', 'quiet', 'no-worker'));
    // Paused for a second (OXMQ_NOTIFY_PAUSED_SECONDS) after the unmute: "paused too long".
    const paused = await receiver.next(
      notificationOf('problem.started', 'quiet', 'paused-too-long'),
    );
    expect(paused.body.severity).toBe('warning');

    const actions = (await auditOf(admin))
      .filter((entry) => entry.target === `${prefix}:quiet` && entry.actor === OPERATOR.username)
      .map((entry) => entry.action);
    expect(actions).toEqual(['queue.notify.unmute', 'queue.notify.mute']);
  });

  it('an admin sends a test notification; operators and viewers are refused', async () => {
    expect((await viewer.post('/api/notifications/test')).status).toBe(403);
    expect((await operator.post('/api/notifications/test')).status).toBe(403);
    const response = await admin.post('/api/notifications/test');
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const parsed = testNotificationResponseSchema.parse(JSON.parse(text));
    expect(parsed.results).toEqual([
      { webhook: 'ci hook', format: 'json', ok: true, attempts: 1, status: 200 },
    ]);
    const test = await receiver.next(notificationOf('test'));
    expect(test.body.message).toContain(ADMIN.username);

    const audit = await auditOf(admin);
    expect(audit.find((entry) => entry.action === 'notify.test')).toMatchObject({
      actor: ADMIN.username,
      outcome: 'ok',
    });
    expect(audit.find((entry) => entry.action === 'notification.test')).toMatchObject({
      actor: 'system:notifier',
      target: 'webhooks',
      params: expect.objectContaining({ webhook: 'ci hook' }),
    });
  });

  it('never shows the webhook URL: status page, audit log, server output', async () => {
    const response = await operator.get('/api/notifications');
    const text = await response.text();
    expect(response.status).toBe(200);
    const status = notificationsStatusSchema.parse(JSON.parse(text));
    expect(status).toMatchObject({
      enabled: true,
      webhooks: [{ label: 'ci hook', format: 'json' }],
      intervalMs: 250,
      pausedAfterSeconds: 1,
    });
    expect(status.senders).toEqual([
      { prefix, holder: expect.any(String), self: expect.any(Boolean) },
    ]);
    expect((await viewer.get('/api/notifications')).status).toBe(403);
    for (const shown of [text, JSON.stringify(await auditOf(admin)), output()]) {
      expect(shown).not.toContain('T000-secret-webhook-path');
    }
  });

  it('a console without webhooks refuses the test notification', async () => {
    const shared = await signIn(inject('consoleUrl'), ADMIN);
    const response = await shared.post('/api/notifications/test');
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'CONFLICT' });
  });
});
