/**
 * The one server module that holds the console's Redis connection. Route handlers call the
 * engine's admin object (engine/admin/create-admin.ts) that `admin()` binds to it, with the
 * console's prefixes, redaction rules (redact.ts) and backlog threshold; this file adds only what
 * is the console's own: the health ping, the audit log's stdout copy and refusal throttle, the
 * session revocation records, and the dedicated live-events connection. Nothing else in app/ touches Redis.
 */
import 'server-only';
import {
  BacklogSampler,
  createAdmin,
  type Admin,
  type AuditKind,
  type AuditRecord,
} from 'oxmq/admin';
import { openRedis, type RedisClient } from '../../config/redis-connection';
import { consoleRedisTarget, getEnv } from './env';
import { redactionRules } from './redact';
import { RefusalThrottle } from './refusal-throttle';
import { SessionRevocations } from './session-revocation';

/** A console request should fail fast while Redis is away rather than queue for seconds. */
const COMMAND_TIMEOUT_MS = 3_000;
const HEALTH_TIMEOUT_MS = 1_500;

// Kept on globalThis so `next dev` reloads reuse one connection instead of leaking one per edit.
const holder = globalThis as typeof globalThis & {
  __oxmqConsoleRedis?: RedisClient;
  __oxmqConsoleAdmin?: Admin;
  __oxmqSessionRevocations?: SessionRevocations;
  __oxmqBacklogSampler?: BacklogSampler;
};

/** A server, a Sentinel group's master or a Cluster (REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES). */
function redis(): RedisClient {
  if (!holder.__oxmqConsoleRedis) {
    const client = openRedis(consoleRedisTarget(getEnv()), {
      connectionName: 'oxmq:console',
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
    });
    // Without a listener ioredis logs every reconnect failure as an unhandled error event.
    client.on('error', (error: Error) => {
      console.error(`OxMQ console: Redis error: ${error.message}`);
    });
    holder.__oxmqConsoleRedis = client;
  }
  return holder.__oxmqConsoleRedis;
}

export function configuredPrefixes(): readonly string[] {
  return getEnv().OXMQ_PREFIXES;
}

export function isReadOnly(): boolean {
  return getEnv().OXMQ_READ_ONLY;
}

/** True when Redis answers PING within the health timeout. */
export async function pingRedis(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
  });
  try {
    const ping = redis()
      .ping()
      .then((reply) => reply === 'PONG')
      .catch(() => false);
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Offers to sample the backlog history of the console's prefixes each minute (one process among the
 * consoles and runners does it, by lease: engine/admin/redis/backlog-sampler.ts). Started once at
 * server start (instrumentation.ts) unless OXMQ_HISTORY_SAMPLER is false.
 */
export function startBacklogSampler(): void {
  if (holder.__oxmqBacklogSampler || !getEnv().OXMQ_HISTORY_SAMPLER) return;
  let failing = false;
  holder.__oxmqBacklogSampler = new BacklogSampler(redis(), {
    prefixes: getEnv().OXMQ_PREFIXES,
    onSampled: () => (failing = false),
    onError: (error) => {
      if (failing) return;
      failing = true;
      console.error(`OxMQ console: backlog history sampling failed (retrying): ${String(error)}`);
    },
  });
  holder.__oxmqBacklogSampler.start();
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The admin object on the console's connection: created on first use (not at import, which a
 * Next build does without a Redis), then one per process like the connection.
 */
export function admin(): Admin {
  holder.__oxmqConsoleAdmin ??= createAdmin(redis(), {
    prefixes: getEnv().OXMQ_PREFIXES,
    redaction: redactionRules,
    oldBacklogMinutes: getEnv().OXMQ_OLD_BACKLOG_MINUTES,
    auditRetentionMs: getEnv().OXMQ_AUDIT_RETENTION_DAYS * DAY_MS,
  });
  return holder.__oxmqConsoleAdmin;
}

/** Signed-out sessions and "sign out everywhere", on the console's connection. */
export function sessionRevocations(): SessionRevocations {
  holder.__oxmqSessionRevocations ??= new SessionRevocations(
    redis,
    getEnv().OXMQ_SESSION_ABSOLUTE_HOURS * 60 * 60 * 1000,
  );
  return holder.__oxmqSessionRevocations;
}

const refusals = new RefusalThrottle();

/**
 * Writes one audit record: to stdout as a JSON line (every record: the append-only copy a log
 * collector ships, docs/security.md), and to its Redis stream, refused requests through the
 * per-actor throttle.
 */
export async function recordAudit(record: AuditRecord): Promise<void> {
  const kind: AuditKind = record.outcome === 'denied' ? 'refused' : 'accepted';
  process.stdout.write(
    `${JSON.stringify({ type: 'oxmq.audit', time: new Date().toISOString(), kind, ...record })}\n`,
  );
  let suppressed = 0;
  if (kind === 'refused') {
    const admitted = refusals.admit(record.actor);
    if (!admitted.write) return;
    suppressed = admitted.suppressed;
  }
  await admin().audit.append(kind, suppressed > 0 ? { ...record, suppressed } : record);
}

/**
 * A dedicated connection for the live-events reader: XREAD BLOCK holds a connection for the
 * whole wait, so it may not share the request connection, nor have its command timeout. The
 * caller quits it when nobody listens any more.
 */
export function openLiveEventsConnection(): RedisClient {
  const client = openRedis(consoleRedisTarget(getEnv()), {
    connectionName: LIVE_EVENTS_CONNECTION_NAME,
    maxRetriesPerRequest: null,
    connectTimeout: COMMAND_TIMEOUT_MS,
  });
  client.on('error', (error: Error) => {
    console.error(`OxMQ console: live events Redis error: ${error.message}`);
  });
  return client;
}

const LIVE_EVENTS_CONNECTION_NAME = 'oxmq:console:live';
