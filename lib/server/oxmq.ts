/**
 * The one server module that holds the console's Redis connection and calls engine/admin
 * (design.md §1). Route handlers call these functions; nothing else in app/ touches Redis.
 */
import 'server-only';
import { Redis } from 'ioredis';
import {
  appendAudit,
  getQueueOverview,
  listQueues,
  pauseQueue,
  queueExists,
  readAudit,
  resumeQueue,
  type AuditPage,
  type AuditRecord,
  type QueueList,
  type QueueOverview,
} from '@/engine/admin';
import { getEnv } from './env';

export { AUDIT_DEFAULTS, AUDIT_ID_PATTERN } from '@/engine/admin';

/** A console request should fail fast while Redis is away rather than queue for seconds. */
const COMMAND_TIMEOUT_MS = 3_000;
const HEALTH_TIMEOUT_MS = 1_500;

// Kept on globalThis so `next dev` reloads reuse one connection instead of leaking one per edit.
const holder = globalThis as typeof globalThis & { __oxmqConsoleRedis?: Redis };

function redis(): Redis {
  if (!holder.__oxmqConsoleRedis) {
    const client = new Redis(getEnv().REDIS_URL, {
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

export function discoverQueues(): Promise<QueueList> {
  return listQueues(redis(), configuredPrefixes());
}

export function queueOverview(prefix: string, name: string): Promise<QueueOverview> {
  return getQueueOverview(redis(), prefix, name);
}

export function hasQueue(prefix: string, name: string): Promise<boolean> {
  return queueExists(redis(), prefix, name);
}

export function pause(prefix: string, name: string): Promise<void> {
  return pauseQueue(redis(), prefix, name);
}

export function resume(prefix: string, name: string): Promise<void> {
  return resumeQueue(redis(), prefix, name);
}

export function recordAudit(record: AuditRecord): Promise<string> {
  return appendAudit(redis(), record);
}

export function auditPage(opts: { before?: string; count: number }): Promise<AuditPage> {
  return readAudit(redis(), opts);
}
