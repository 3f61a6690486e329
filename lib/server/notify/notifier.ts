/**
 * The console's notifier: every `intervalMs` it reads the overviews of every queue of each
 * prefix (the problems the overview page shows), decides what started and what cleared
 * (evaluate.ts), commits that to Redis (state.ts) and sends it to each webhook (deliver.ts),
 * writing each delivery, or its final failure, to the audit log as `system:notifier`.
 *
 * One sender at a time: each prefix has a `notifier` lease (engine/admin/redis/lease.ts) and each
 * round is a numbered turn claimed under it, so among several consoles one holds the lease and
 * does the round, and a console that takes over (the holder stopped, or died and its lease ran
 * out) neither repeats a turn nor re-sends an open problem: the open problems live in Redis, and
 * a round's state is committed, under the lease, before anything is sent.
 *
 * No `server-only` here: the notifier takes its client, settings and audit writer as options
 * (console-notifier.ts builds it from the console's), so tests run several on one Redis.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisClient } from 'oxmq';
import {
  DEFAULT_REDACTION,
  getQueueOverviews,
  listQueues,
  redactText,
  RedisLease,
  type AuditRecord,
  type QueueOverview,
  type RedactionRules,
} from 'oxmq/admin';
import { deliver, type DeliveryOptions, type DeliveryResult } from './deliver';
import { decideRound } from './evaluate';
import { bodyFor, headline, type Notification } from './messages';
import {
  commitRound,
  dropMutes,
  notifierKeys,
  NOTIFIER_LEASE_NAME,
  NOTIFY_LIMITS,
  readMutes,
  readOpen,
} from './state';
import type { Webhook } from './webhooks';

const NOTIFIER_ACTOR = 'system:notifier';

export interface NotifierLog {
  info(line: string): void;
  warn(line: string): void;
}

export interface NotifierOptions {
  client: RedisClient;
  prefixes: readonly string[];
  webhooks: readonly Webhook[];
  /** How often a round runs (its turn number is `now / intervalMs`). */
  intervalMs: number;
  /** A queue paused this long is a "paused too long" problem. */
  pausedAfterMs: number;
  delivery: DeliveryOptions;
  /** The origin users open (NEXTAUTH_URL): notifications link to queue pages under it. */
  consoleUrl: string;
  audit: (record: AuditRecord) => Promise<void>;
  redaction?: () => RedactionRules;
  oldBacklogMinutes?: number;
  /** The lease's TTL: default three intervals, at least 10 s. */
  leaseTtlMs?: number;
  /** This process's id in the lease (default: host, pid and a random part). */
  holder?: string;
  log?: NotifierLog;
}

export interface RoundReport {
  prefix: string;
  /** This notifier claimed the round's turn (it holds the lease and nobody did this turn). */
  claimed: boolean;
  /** Notifications handed to the webhooks (each to every webhook). */
  sent: Notification[];
}

export interface WebhookResult extends DeliveryResult {
  webhook: string;
  format: Webhook['format'];
}

const CONSOLE_LOG: NotifierLog = {
  info: (line) => console.log(`OxMQ console: notifier: ${line}`),
  warn: (line) => console.error(`OxMQ console: notifier: ${line}`),
};

export class Notifier {
  readonly holder: string;
  private readonly leases = new Map<string, RedisLease>();
  private readonly log: NotifierLog;
  private readonly leaseTtlMs: number;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private stopping = new AbortController();

  constructor(private readonly options: NotifierOptions) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = options.log ?? CONSOLE_LOG;
    this.leaseTtlMs = options.leaseTtlMs ?? Math.max(3 * options.intervalMs, 10_000);
  }

  get enabled(): boolean {
    return this.options.webhooks.length > 0;
  }

  get webhooks(): readonly Webhook[] {
    return this.options.webhooks;
  }

  /** Runs a round at every turn until stop(); nothing when no webhook is configured. */
  start(): void {
    if (this.running || !this.enabled) return;
    this.running = true;
    this.stopping = new AbortController();
    this.schedule();
  }

  /** Stops the rounds, ends waits between retries, and gives the leases up for another console. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.current;
    await Promise.all(
      [...this.leases.values()].map((lease) => lease.release().catch(() => undefined)),
    );
  }

  private schedule(): void {
    if (!this.running) return;
    // At the next turn's start, so every console's rounds line up with the turns.
    const interval = this.options.intervalMs;
    const delay = interval - (Date.now() % interval) + 5;
    this.timer = setTimeout(() => {
      this.current = this.round()
        .then(() => undefined)
        .catch((error: unknown) => this.log.warn(`round failed: ${errorText(error)}`))
        .finally(() => {
          this.current = undefined;
          this.schedule();
        });
    }, delay);
    this.timer.unref?.();
  }

  /** One round over every prefix (each under its own lease). */
  async round(now = Date.now()): Promise<RoundReport[]> {
    const turn = Math.floor(now / this.options.intervalMs);
    return Promise.all(
      this.options.prefixes.map((prefix) =>
        this.roundFor(prefix, turn, now).catch((error: unknown) => {
          this.log.warn(`round for prefix ${prefix} failed: ${errorText(error)}`);
          return { prefix, claimed: false, sent: [] };
        }),
      ),
    );
  }

  private lease(prefix: string): RedisLease {
    let lease = this.leases.get(prefix);
    if (!lease) {
      lease = new RedisLease(this.options.client, prefix, NOTIFIER_LEASE_NAME, {
        ttlMs: this.leaseTtlMs,
        holder: this.holder,
      });
      this.leases.set(prefix, lease);
    }
    return lease;
  }

  private async roundFor(prefix: string, turn: number, now: number): Promise<RoundReport> {
    const { client } = this.options;
    const lease = this.lease(prefix);
    const claim = await lease.claim(turn);
    if (!claim.claimed) return { prefix, claimed: false, sent: [] };
    // Deliveries may take several retries: the lease is renewed meanwhile.
    const keeper = setInterval(
      () => void lease.hold().catch(() => undefined),
      Math.max(1_000, Math.floor(this.leaseTtlMs / 3)),
    );
    keeper.unref?.();
    try {
      const keys = notifierKeys(prefix);
      const list = await listQueues(client, [prefix]);
      const refs = list.queues.slice(0, NOTIFY_LIMITS.maxQueues);
      const complete = list.complete && list.queues.length <= NOTIFY_LIMITS.maxQueues;
      const [open, mutes] = await Promise.all([readOpen(client, keys), readMutes(client, keys)]);
      const overviews: QueueOverview[] = [];
      for (let at = 0; at < refs.length; at += NOTIFY_LIMITS.overviewPage) {
        const page = refs.slice(at, at + NOTIFY_LIMITS.overviewPage);
        overviews.push(
          ...(await getQueueOverviews(client, page, {
            now,
            oldBacklogMinutes: this.options.oldBacklogMinutes,
          })),
        );
      }
      const rules = this.options.redaction?.() ?? DEFAULT_REDACTION;
      const decision = decideRound({
        prefix,
        now,
        overviews,
        complete,
        open,
        muted: new Set(mutes.keys()),
        pausedAfterMs: this.options.pausedAfterMs,
        consoleUrl: this.options.consoleUrl,
        redact: (text) => redactText(text, rules),
      });
      if (!(await commitRound(client, keys, this.holder, decision))) {
        this.log.warn(`lost the ${prefix} lease during a round; another console sends`);
        return { prefix, claimed: true, sent: [] };
      }
      if (complete) {
        const seen = new Set(refs.map((ref) => ref.name));
        await dropMutes(
          client,
          keys,
          [...mutes.keys()].filter((queue) => !seen.has(queue)),
        );
      }
      await Promise.all(decision.notifications.map((notification) => this.send(notification)));
      return { prefix, claimed: true, sent: decision.notifications };
    } finally {
      clearInterval(keeper);
    }
  }

  /** Sends one notification to every webhook, with retries; each outcome is audited. */
  private send(notification: Notification, maxAttempts?: number): Promise<WebhookResult[]> {
    return Promise.all(
      this.options.webhooks.map(async (webhook) => {
        const attempts = maxAttempts ?? this.options.delivery.maxAttempts;
        const result = await deliver(
          webhook.url,
          bodyFor(webhook.format, notification, Date.now()),
          { ...this.options.delivery, maxAttempts: attempts },
          {
            signal: this.stopping.signal,
            onAttemptFailed: ({ attempt, error, retryInMs }) => {
              if (retryInMs !== null) {
                this.log.warn(
                  `${notification.event} ${notification.id} to ${webhook.label}: attempt ` +
                    `${attempt} of ${attempts} failed (${error}); retrying in ${retryInMs} ms`,
                );
              }
            },
          },
        );
        if (result.ok) {
          this.log.info(`${headline(notification)}: sent to ${webhook.label}`);
        } else {
          this.log.warn(
            `${notification.event} ${notification.id} to ${webhook.label} failed after ` +
              `${result.attempts} attempt(s) (${result.error})`,
          );
        }
        await this.audit(notification, webhook, result);
        return { ...result, webhook: webhook.label, format: webhook.format };
      }),
    );
  }

  private async audit(notification: Notification, webhook: Webhook, result: DeliveryResult) {
    const event = notification.event === 'test' ? 'test' : notification.event.slice(8);
    try {
      await this.options.audit({
        actor: NOTIFIER_ACTOR,
        role: 'system',
        action: result.ok ? `notification.${event}` : 'notification.failed',
        target: notification.prefix ? `${notification.prefix}:${notification.queue}` : 'webhooks',
        params: {
          event: notification.event,
          id: notification.id,
          kind: notification.kind,
          severity: notification.severity,
          webhook: webhook.label,
          format: webhook.format,
          attempts: result.attempts,
          ...(result.error ? { error: result.error } : {}),
        },
        outcome: result.ok ? 'ok' : 'error',
        status: result.status,
        ...(result.ok ? {} : { code: 'DELIVERY_FAILED' }),
      });
    } catch (error) {
      this.log.warn(`could not write the audit log: ${errorText(error)}`);
    }
  }

  /**
   * A test notification to every webhook, sent once each (no retry, so the answer comes at
   * once and says whether each webhook works), whoever holds the lease.
   */
  sendTest(requestedBy: string, now = Date.now()): Promise<WebhookResult[]> {
    const rules = this.options.redaction?.() ?? DEFAULT_REDACTION;
    return this.send(
      {
        event: 'test',
        id: `test:${now}`,
        prefix: null,
        queue: null,
        kind: null,
        severity: 'info',
        message: redactText(
          `A test notification sent by ${requestedBy} from the OxMQ console: this webhook works.`,
          rules,
        ),
        startedAt: null,
        clearedAt: null,
        link: this.options.consoleUrl.replace(/\/+$/, '') + '/',
      },
      1,
    );
  }

  /** Which process holds each prefix's lease (null: none now), and whether it is this one. */
  async senders(): Promise<{ prefix: string; holder: string | null; self: boolean }[]> {
    return Promise.all(
      this.options.prefixes.map(async (prefix) => {
        const holder = await this.options.client.get(notifierKeys(prefix).lease);
        return { prefix, holder, self: holder === this.holder };
      }),
    );
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
