/**
 * The notifier (lib/server/notify/) against a real Redis and a real HTTP receiver: problems sent
 * when they start and when they clear, once, by one of several notifiers; retries with backoff;
 * a receiver that refuses connections and comes back; mutes; "paused too long"; the Slack body;
 * every delivery and failure in the audit log. Rounds are run by hand with explicit times (a
 * round resolves once its deliveries are done), so nothing here waits for a clock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Queue } from 'oxmq';
import { appendAudit, readAudit, type AuditEntry } from 'oxmq/admin';
import {
  commitRound,
  muteQueue,
  notifierKeys,
  readOpen,
  unmuteQueue,
} from '../../lib/server/notify/state';
import { Notifier, type NotifierOptions, type RoundReport } from '../../lib/server/notify/notifier';
import type { Webhook } from '../../lib/server/notify/webhooks';
import { useCleanup } from '../helpers/cleanup';
import { rawClient, redisOptions, waitFor } from '../helpers/redis';
import {
  notificationOf,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver';

const redis = rawClient();
const track = useCleanup();
let receiver: WebhookReceiver;
let prefix: string;
let auditKey: string;
let logLines: string[];
let lineWaiters: { pattern: RegExp; resolve: () => void }[];
const INTERVAL = 1_000;
/** A start time on a turn boundary; round(k) runs turn k after it. */
let t0: number;
const at = (turn: number) => t0 + turn * INTERVAL;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver.close();
  await redis.quit();
});

beforeEach(() => {
  prefix = `ntf-${randomUUID().slice(0, 8)}`;
  auditKey = `oxmq:test-audit:${prefix}`;
  logLines = [];
  lineWaiters = [];
  t0 = Math.ceil(Date.now() / INTERVAL) * INTERVAL;
});

afterEach(async () => {
  await receiver.up();
});

function jsonHook(): Webhook {
  return { url: receiver.url, format: 'json', label: 'test hook' };
}

function makeNotifier(over: Partial<NotifierOptions> = {}): Notifier {
  const notifier = new Notifier({
    client: redis,
    prefixes: [prefix],
    webhooks: [jsonHook()],
    intervalMs: INTERVAL,
    pausedAfterMs: 60_000,
    delivery: { maxAttempts: 3, retryBaseMs: 50, timeoutMs: 2_000 },
    consoleUrl: 'http://console.test',
    audit: async (record) => {
      await appendAudit(redis, record, { key: auditKey });
    },
    log: {
      info: (line) => logLines.push(line),
      warn: (line) => {
        logLines.push(line);
        for (const waiter of lineWaiters.filter((w) => w.pattern.test(line))) waiter.resolve();
      },
    },
    ...over,
  });
  return track({ close: () => notifier.stop(), notifier }).notifier;
}

/** Resolves when the notifier logs a warning matching `pattern`. */
function logged(pattern: RegExp): Promise<void> {
  return new Promise((resolve) => lineWaiters.push({ pattern, resolve }));
}

function newQueue(name: string): Queue {
  return track(new Queue(name, { connection: redisOptions(), prefix }));
}

async function auditEntries(): Promise<AuditEntry[]> {
  return (await readAudit(redis, { key: auditKey, count: 100 })).entries.reverse();
}

const sentEvents = (reports: RoundReport[]) =>
  reports.flatMap((report) => report.sent.map((n) => `${n.event} ${n.queue} ${n.kind}`));

describe('the notifier', () => {
  it('sends a started problem once and its clear once, without job data', async () => {
    const queue = newQueue('emails');
    await queue.add('secret-job', { password: 'hunter2', note: 'S-ntf-job-data' });
    const notifier = makeNotifier();

    expect(sentEvents(await notifier.round(at(1)))).toEqual(['problem.started emails no-worker']);
    const started = await receiver.next(notificationOf('problem.started', 'emails', 'no-worker'));
    expect(started.body).toEqual({
      source: 'oxmq',
      event: 'problem.started',
      id: `${prefix}:emails:no-worker:${at(1)}`,
      prefix,
      queue: 'emails',
      kind: 'no-worker',
      severity: 'critical',
      message: '1 job waits but no worker is connected.',
      startedAt: new Date(at(1)).toISOString(),
      clearedAt: null,
      link: `http://console.test/queues/${prefix}/emails`,
      sentAt: expect.any(String),
    });
    expect(started.headers['content-type']).toBe('application/json');

    // Still open: nothing more, whatever the count says now.
    await queue.add('another', {});
    expect(sentEvents(await notifier.round(at(2)))).toEqual([]);

    await queue.drain();
    expect(sentEvents(await notifier.round(at(3)))).toEqual(['problem.cleared emails no-worker']);
    const cleared = await receiver.next(notificationOf('problem.cleared', 'emails'));
    expect(cleared.body).toMatchObject({
      id: started.body.id,
      startedAt: started.body.startedAt,
      clearedAt: new Date(at(3)).toISOString(),
      severity: 'critical',
    });
    expect(String(cleared.body.message)).toMatch(/^Cleared after 2 s\. It started with: 1 job/);
    expect(sentEvents(await notifier.round(at(4)))).toEqual([]);

    const bodies = JSON.stringify(receiver.matching((r) => r.body.queue === 'emails'));
    expect(bodies).not.toContain('hunter2');
    expect(bodies).not.toContain('S-ntf-job-data');
    const audit = await auditEntries();
    expect(audit.map((e) => [e.actor, e.role, e.action, e.target, e.outcome])).toEqual([
      ['system:notifier', 'system', 'notification.started', `${prefix}:emails`, 'ok'],
      ['system:notifier', 'system', 'notification.cleared', `${prefix}:emails`, 'ok'],
    ]);
    expect(audit[0]!.params).toMatchObject({
      kind: 'no-worker',
      webhook: 'test hook',
      attempts: 1,
    });
    expect(JSON.stringify(audit)).not.toContain(receiver.url);
  });

  it('two notifiers: one claims each turn, and a takeover neither re-sends nor misses the clear', async () => {
    const queue = newQueue('orders');
    await queue.add('job', {});
    const a = makeNotifier({ holder: 'console-a' });
    const b = makeNotifier({ holder: 'console-b' });

    const first = await Promise.all([a.round(at(1)), b.round(at(1))]);
    expect(first.map(([report]) => report!.claimed).sort()).toEqual([false, true]);
    expect(first.flatMap(sentEvents)).toEqual(['problem.started orders no-worker']);
    const second = await Promise.all([a.round(at(2)), b.round(at(2))]);
    expect(second.flatMap(sentEvents)).toEqual([]);

    // The holder stops (it gives the lease up); the other takes over inside the next turn.
    const holder = (await redis.get(notifierKeys(prefix).lease)) === 'console-a' ? a : b;
    const other = holder === a ? b : a;
    await holder.stop();
    expect(sentEvents(await other.round(at(3)))).toEqual([]);
    await queue.drain();
    expect(sentEvents(await other.round(at(4)))).toEqual(['problem.cleared orders no-worker']);

    await receiver.next(notificationOf('problem.cleared', 'orders'));
    expect(receiver.matching(notificationOf('problem.started', 'orders'))).toHaveLength(1);
    expect(receiver.matching(notificationOf('problem.cleared', 'orders'))).toHaveLength(1);
  });

  it('a round commits its state only while its notifier holds the lease', async () => {
    const keys = notifierKeys(prefix);
    const problem = {
      queue: 'q',
      kind: 'no-worker' as const,
      severity: 'critical' as const,
      message: 'm',
      startedAt: 1,
      sent: true,
    };
    const changes = { remove: [], set: new Map([['q:no-worker', problem]]) };
    // Another console took the lease (this one's ran out while its round was under way).
    await redis.set(keys.lease, 'console-b', 'PX', 10_000);
    expect(await commitRound(redis, keys, 'console-a', changes)).toBe(false);
    expect((await readOpen(redis, keys)).size).toBe(0);
    expect(await commitRound(redis, keys, 'console-b', changes)).toBe(true);
    expect([...(await readOpen(redis, keys)).values()]).toEqual([problem]);
    expect(await redis.pttl(keys.open)).toBeGreaterThan(60_000);
  });

  it('a turn is done once even when two notifiers run their loops on the same Redis', async () => {
    const queue = newQueue('looped');
    await queue.add('job', {});
    const a = makeNotifier({ holder: 'loop-a', intervalMs: 150 });
    const b = makeNotifier({ holder: 'loop-b', intervalMs: 150 });
    a.start();
    b.start();
    await receiver.next(notificationOf('problem.started', 'looped'));
    // Five more turns done by one or the other (each claimed turn is written to Redis).
    const turnKey = `${notifierKeys(prefix).lease}:turn`;
    const seen = Number(await redis.get(turnKey));
    await waitFor(async () => Number(await redis.get(turnKey)) >= seen + 5, 15_000);
    await queue.drain();
    await receiver.next(notificationOf('problem.cleared', 'looped'));
    await Promise.all([a.stop(), b.stop()]);
    expect(receiver.matching(notificationOf('problem.started', 'looped'))).toHaveLength(1);
    expect(receiver.matching(notificationOf('problem.cleared', 'looped'))).toHaveLength(1);
  });

  it('retries a webhook answering 500 with backoff, and gives up at once on a 400', async () => {
    const queue = newQueue('flaky');
    await queue.add('job', {});
    const notifier = makeNotifier();
    receiver.answerNext(500, 503);
    await notifier.round(at(1));
    const tries = receiver.matching(notificationOf('problem.started', 'flaky'));
    expect(tries.map((r) => r.status)).toEqual([500, 503, 200]);
    expect(new Set(tries.map((r) => r.body.id)).size).toBe(1);
    expect(logLines.filter((line) => /attempt \d of 3 failed \(HTTP 50[03]\)/.test(line))).toEqual([
      expect.stringContaining('retrying in 50 ms'),
      expect.stringContaining('retrying in 100 ms'),
    ]);

    receiver.answerNext(400);
    await queue.drain();
    await notifier.round(at(2));
    expect(receiver.matching(notificationOf('problem.cleared', 'flaky'))).toHaveLength(1);
    const audit = await auditEntries();
    expect(audit.map((e) => [e.action, e.outcome, e.status, e.code])).toEqual([
      ['notification.started', 'ok', 200, undefined],
      ['notification.failed', 'error', 400, 'DELIVERY_FAILED'],
    ]);
    expect(audit[0]!.params).toMatchObject({ attempts: 3 });
    expect(audit[1]!.params).toMatchObject({
      event: 'problem.cleared',
      attempts: 1,
      error: 'HTTP 400',
    });
  });

  it('a receiver that refuses connections gets the notification once it listens again', async () => {
    const queue = newQueue('outage');
    await queue.add('job', {});
    const notifier = makeNotifier({
      delivery: { maxAttempts: 5, retryBaseMs: 200, timeoutMs: 2_000 },
    });
    await receiver.down();
    const refused = logged(/outage.*attempt 1 of 5 failed \(ECONNREFUSED\)/);
    const round = notifier.round(at(1));
    await refused;
    await receiver.up();
    await round;
    await receiver.next(notificationOf('problem.started', 'outage'));
    const [entry] = await auditEntries();
    expect(entry).toMatchObject({ action: 'notification.started', outcome: 'ok' });
    expect((entry!.params as { attempts: number }).attempts).toBeGreaterThanOrEqual(2);
  });

  it('a delivery that fails every attempt is audited, not re-sent, and later ones go out', async () => {
    const queue = newQueue('down');
    await queue.add('job', {});
    const notifier = makeNotifier({
      delivery: { maxAttempts: 2, retryBaseMs: 20, timeoutMs: 2_000 },
    });
    await receiver.down();
    expect(sentEvents(await notifier.round(at(1)))).toEqual(['problem.started down no-worker']);
    const [failed] = await auditEntries();
    expect(failed).toMatchObject({
      actor: 'system:notifier',
      action: 'notification.failed',
      outcome: 'error',
      status: 0,
      code: 'DELIVERY_FAILED',
      params: expect.objectContaining({
        event: 'problem.started',
        attempts: 2,
        error: 'ECONNREFUSED',
      }),
    });

    await receiver.up();
    expect(sentEvents(await notifier.round(at(2)))).toEqual([]);
    await queue.drain();
    expect(sentEvents(await notifier.round(at(3)))).toEqual(['problem.cleared down no-worker']);
    await receiver.next(notificationOf('problem.cleared', 'down'));
    expect(receiver.matching(notificationOf('problem.started', 'down'))).toHaveLength(0);
  });

  it('a muted queue sends nothing until it is unmuted; then what changed meanwhile', async () => {
    const queue = newQueue('muted');
    const notifier = makeNotifier();
    await muteQueue(redis, prefix, 'muted', 'olly');
    await queue.add('job', {});
    expect(sentEvents(await notifier.round(at(1)))).toEqual([]);
    expect(sentEvents(await notifier.round(at(2)))).toEqual([]);

    await unmuteQueue(redis, prefix, 'muted');
    expect(sentEvents(await notifier.round(at(3)))).toEqual(['problem.started muted no-worker']);

    await muteQueue(redis, prefix, 'muted', 'olly');
    await queue.drain();
    expect(sentEvents(await notifier.round(at(4)))).toEqual([]);
    await unmuteQueue(redis, prefix, 'muted');
    expect(sentEvents(await notifier.round(at(5)))).toEqual(['problem.cleared muted no-worker']);
    expect(receiver.matching((r) => r.body.queue === 'muted').map((r) => r.body.event)).toEqual([
      'problem.started',
      'problem.cleared',
    ]);
  });

  it('a pause is notified once it lasted the configured time, and its end clears it', async () => {
    const queue = newQueue('held');
    await queue.pause();
    const notifier = makeNotifier({ pausedAfterMs: 3_000 });
    expect(sentEvents(await notifier.round(at(1)))).toEqual([]);
    expect(sentEvents(await notifier.round(at(3)))).toEqual([]);
    expect(sentEvents(await notifier.round(at(4)))).toEqual([
      'problem.started held paused-too-long',
    ]);
    const started = await receiver.next(notificationOf('problem.started', 'held'));
    expect(started.body).toMatchObject({
      kind: 'paused-too-long',
      severity: 'warning',
      startedAt: new Date(at(1)).toISOString(),
      message:
        'The queue has been paused for 3 s (notified after 3 s): no new job starts until it is resumed.',
    });
    await queue.resume();
    expect(sentEvents(await notifier.round(at(5)))).toEqual([
      'problem.cleared held paused-too-long',
    ]);

    // A pause that ends before the time is never notified.
    await queue.pause();
    await notifier.round(at(6));
    await queue.resume();
    expect(sentEvents(await notifier.round(at(7)))).toEqual([]);
    expect(receiver.matching((r) => r.body.queue === 'held')).toHaveLength(2);
  });

  it('sends Slack-compatible bodies: text and blocks, with markup escaped', async () => {
    const queue = newQueue('a<b>&c');
    await queue.add('job', {});
    const notifier = makeNotifier({
      webhooks: [{ url: receiver.url, format: 'slack', label: 'slack' }],
    });
    await notifier.round(at(1));
    const { body } = await receiver.next((r) => String(r.body.text ?? '').includes('a&lt;b&gt;'));
    const link = `http://console.test/queues/${prefix}/${encodeURIComponent('a<b>&c')}`;
    expect(body).toEqual({
      text: `Critical: No worker on ${prefix}:a&lt;b&gt;&amp;c: 1 job waits but no worker is connected.`,
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              `*Critical: No worker on ${prefix}:a&lt;b&gt;&amp;c*\n` +
              `1 job waits but no worker is connected.\n<${link}|Open the queue>`,
          },
        },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: `Started ${new Date(at(1)).toISOString()}` }],
        },
      ],
    });
  });

  it('sends a test notification to every webhook once and audits each', async () => {
    const notifier = makeNotifier({
      webhooks: [jsonHook(), { url: receiver.url, format: 'slack', label: 'slack hook' }],
    });
    receiver.answerNext(500);
    const results = await notifier.sendTest('ada');
    expect(results.map((r) => [r.webhook, r.ok, r.attempts]).sort()).toEqual([
      ['slack hook', expect.any(Boolean), 1],
      ['test hook', expect.any(Boolean), 1],
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const audit = await auditEntries();
    expect(audit.map((e) => e.action).sort()).toEqual(['notification.failed', 'notification.test']);
    expect(audit.every((e) => e.target === 'webhooks' && e.actor === 'system:notifier')).toBe(true);
  });
});
