/**
 * The console's notifier (notifier.ts) built from its settings (lib/server/env.ts), one per
 * process, on a Redis connection of its own (`oxmq:console:notify`, whose commands are never
 * queued behind a request's). instrumentation.ts starts it when the console starts; the routes
 * under app/api/notifications and a queue's notifications routes use it for the test
 * notification, the status page and the mutes.
 */
import 'server-only';
import type { RedisClient } from 'oxmq';
import { openRedis } from '../../../config/redis-connection';
import { consoleRedisTarget, getEnv } from '../env';
import { recordAudit } from '../oxmq';
import { redactionRules } from '../redact';
import { Notifier } from './notifier';

const COMMAND_TIMEOUT_MS = 3_000;
const NOTIFY_CONNECTION_NAME = 'oxmq:console:notify';

// Kept on globalThis like the console's connection, so `next dev` reloads reuse them.
const holder = globalThis as typeof globalThis & {
  __oxmqNotifyRedis?: RedisClient;
  __oxmqNotifier?: Notifier;
};

export function notifyRedis(): RedisClient {
  if (!holder.__oxmqNotifyRedis) {
    const client = openRedis(consoleRedisTarget(getEnv()), {
      connectionName: NOTIFY_CONNECTION_NAME,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
    });
    client.on('error', (error: Error) => {
      console.error(`OxMQ console: notifier Redis error: ${error.message}`);
    });
    holder.__oxmqNotifyRedis = client;
  }
  return holder.__oxmqNotifyRedis;
}

export function consoleNotifier(): Notifier {
  if (!holder.__oxmqNotifier) {
    const env = getEnv();
    holder.__oxmqNotifier = new Notifier({
      client: notifyRedis(),
      prefixes: env.OXMQ_PREFIXES,
      webhooks: env.OXMQ_NOTIFY_WEBHOOKS,
      intervalMs: env.OXMQ_NOTIFY_INTERVAL_MS,
      pausedAfterMs: env.OXMQ_NOTIFY_PAUSED_SECONDS * 1000,
      delivery: {
        maxAttempts: env.OXMQ_NOTIFY_MAX_ATTEMPTS,
        retryBaseMs: env.OXMQ_NOTIFY_RETRY_MS,
        timeoutMs: env.OXMQ_NOTIFY_TIMEOUT_MS,
      },
      consoleUrl: new URL(env.NEXTAUTH_URL).origin,
      oldBacklogMinutes: env.OXMQ_OLD_BACKLOG_MINUTES,
      redaction: redactionRules,
      audit: recordAudit,
    });
  }
  return holder.__oxmqNotifier;
}

/**
 * Starts the rounds when webhooks are configured (from instrumentation.ts). An invalid
 * environment is left for the first request to report, as everywhere else in the console.
 */
export function startConsoleNotifier(): void {
  // `next build` may load the instrumentation hook too: a build sends nothing.
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  let notifier: Notifier;
  try {
    notifier = consoleNotifier();
  } catch (error) {
    console.error(
      `OxMQ console: notifications not started: ${error instanceof Error ? error.message : error}`,
    );
    return;
  }
  if (!notifier.enabled) return;
  notifier.start();
  const { webhooks } = notifier;
  console.log(
    `OxMQ console: notifier: sending queue problems to ${webhooks.length} webhook(s): ` +
      webhooks.map((webhook) => webhook.label).join(', '),
  );
}
