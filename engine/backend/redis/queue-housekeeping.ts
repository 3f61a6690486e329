/**
 * Small queue-level reads and clean-ups bullmq's Queue offers: the events stream trim, the
 * rate-limit and legacy priority keys, the "maxed" test and the QueueEvents connections.
 */
import type { RedisClient } from './connection';
import type { QueueKeys } from '../../queue/keys';
import { checkInteger } from '../operation-validation';
import { parseClientList } from './queue-controls';

/** XTRIM with an approximate MAXLEN, as bullmq trims; returns how many entries went. */
export async function trimEvents(
  client: RedisClient,
  keys: QueueKeys,
  maxLength: number,
): Promise<number> {
  checkInteger('maxLength', maxLength, 0);
  return client.xtrim(keys.events, 'MAXLEN', '~', maxLength);
}

/** Deletes the limiter key (the counter of the current window, or a manual rate limit). */
export function removeRateLimitKey(client: RedisClient, keys: QueueKeys): Promise<number> {
  return client.del(keys.limiter);
}

/** Deletes the `priority` key bullmq versions before 5 kept; nothing writes it now. */
export function removeDeprecatedPriorityKey(client: RedisClient, keys: QueueKeys): Promise<number> {
  return client.del(`${keys.base}priority`);
}

/** True when a global concurrency is set and that many jobs are active. */
export async function isMaxed(client: RedisClient, keys: QueueKeys): Promise<boolean> {
  // A pipeline: the answer is a moment's glance anyway, and a MULTI is refused at maxmemory.
  const [[concurrencyError, concurrency] = [], [activeError, active] = []] =
    (await client.pipeline().hget(keys.meta, 'concurrency').llen(keys.active).exec()) ?? [];
  if (concurrencyError) throw concurrencyError;
  if (activeError) throw activeError;
  if (concurrency === null || concurrency === undefined) return false;
  return Number(active) >= Number(concurrency);
}

/** Connections named as QueueEvents of this queue (`<prefix>:<base64(queue)>:qe`, as bullmq names them). */
export async function getQueueEventsClients(
  client: RedisClient,
  keys: QueueKeys,
): Promise<Record<string, string>[]> {
  const name = `${keys.prefix}:${Buffer.from(keys.queueName).toString('base64')}:qe`;
  const list = String(await client.client('LIST'));
  return parseClientList(list).filter((record) => record.name === name);
}
