/** Queue-wide switches and limits: pause/resume, global concurrency and rate limit, workers. */
import type { RedisClient } from './connection';
import type { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import { checkInteger, checkMillis } from '../operation-validation';
import { readAllAtomically } from './atomic-reads';
import { runScript } from './run-script';

/** Legacy `paused` ids moved back into wait per resume call (stays below Lua's unpack limit). */
const LEGACY_PAUSED_CHUNK = 7_000;

/** The value a manual rate limit stores in the limiter key: above any real `max`. */
const MANUAL_RATE_LIMIT_VALUE = '9007199254740991';

export async function pause(client: RedisClient, keys: QueueKeys): Promise<void> {
  await runScript(client, 'pause', scriptKeys('pause', keys), ['pause', '1', LEGACY_PAUSED_CHUNK]);
}

export async function resume(client: RedisClient, keys: QueueKeys): Promise<void> {
  const pauseKeys = scriptKeys('pause', keys);
  let remaining = Number(
    await runScript(client, 'pause', pauseKeys, ['resume', '1', LEGACY_PAUSED_CHUNK]),
  );
  while (remaining > 0) {
    remaining = Number(
      await runScript(client, 'pause', pauseKeys, ['resume', '0', LEGACY_PAUSED_CHUNK]),
    );
  }
}

export async function isPaused(client: RedisClient, keys: QueueKeys): Promise<boolean> {
  return (await client.hexists(keys.meta, 'paused')) === 1;
}

export async function setGlobalConcurrency(
  client: RedisClient,
  keys: QueueKeys,
  concurrency: number | undefined,
): Promise<void> {
  if (concurrency === undefined) {
    await client.hdel(keys.meta, 'concurrency');
    return;
  }
  checkInteger('concurrency', concurrency, 1);
  await client.hset(keys.meta, 'concurrency', concurrency);
}

export async function setGlobalRateLimit(
  client: RedisClient,
  keys: QueueKeys,
  limit: { max: number; duration: number } | undefined,
): Promise<void> {
  if (limit === undefined) {
    await client.hdel(keys.meta, 'max', 'duration');
    return;
  }
  checkInteger('max', limit.max, 1);
  checkInteger('duration', limit.duration, 1);
  await client.hset(keys.meta, 'max', limit.max, 'duration', limit.duration);
}

export async function rateLimit(client: RedisClient, keys: QueueKeys, ms: number): Promise<void> {
  const px = checkMillis('rate limit', ms, 1);
  await client.set(keys.limiter, MANUAL_RATE_LIMIT_VALUE, 'PX', px);
}

/**
 * Remaining ms of the rate limit. With a max (given, else meta.max): the TTL only when the counter
 * has reached it, else 0. Without any max: the raw PTTL (-2 no key, -1 no expiry), as bullmq.
 */
export async function getRateLimitTtl(
  client: RedisClient,
  keys: QueueKeys,
  maxJobs?: number,
): Promise<number> {
  if (maxJobs !== undefined) checkInteger('maxJobs', maxJobs, 1);
  // The counter and its TTL of one moment (a window may end between two reads), at maxmemory too.
  const values = await readAllAtomically(client, keys.base, [
    ['get', keys.limiter],
    ['pttl', keys.limiter],
    ['hget', keys.meta, 'max'],
  ]);
  const [counter, ttl, metaMax] = values as [string | null, number, string | null];
  const max = maxJobs ?? (metaMax !== null ? Number(metaMax) : undefined);
  if (max === undefined || Number.isNaN(max)) return Number(ttl);
  return Number(counter ?? 0) >= max ? Number(ttl) : 0;
}

/** CLIENT LIST lines ("id=7 addr=… name=…") as records. */
export function parseClientList(list: string): Record<string, string>[] {
  const clients: Record<string, string>[] = [];
  for (const line of list.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const record: Record<string, string> = {};
    for (const pair of line.trim().split(' ')) {
      const at = pair.indexOf('=');
      if (at > 0) record[pair.slice(0, at)] = pair.slice(at + 1);
    }
    clients.push(record);
  }
  return clients;
}

/**
 * Connections named as workers of this queue, as bullmq names them (docs/redis-keys.md):
 * `<prefix>:<base64(queue)>`, or `<prefix>:<base64(queue)>:w:<workerName>`.
 */
export async function getWorkerClients(
  client: RedisClient,
  keys: QueueKeys,
): Promise<Record<string, string>[]> {
  const baseName = `${keys.prefix}:${Buffer.from(keys.queueName).toString('base64')}`;
  const list = String(await client.client('LIST'));
  return parseClientList(list).filter(
    (record) => record.name === baseName || (record.name ?? '').startsWith(`${baseName}:w:`),
  );
}
