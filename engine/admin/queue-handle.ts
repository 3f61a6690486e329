/**
 * Engine Queue objects for admin reads, one per (client, prefix, name) and reused.
 *
 * Why a cache: a console polls the same queues every few seconds. Building a Queue per request
 * would be cheap, except that Queue's constructor subscribes an 'error' listener on the client
 * it is given and close() does not take it off a shared client. So handles are cached, and the
 * listener each new Queue adds is removed again: the owner of the shared client (the console's
 * server module) already handles that client's errors.
 */
import type { RedisClient } from '../backend/redis/connection';
import { Queue } from '../queue/queue';

const handles = new WeakMap<RedisClient, Map<string, Queue>>();

/** Upper bound of cached handles per client; beyond it the oldest is dropped (and closed). */
export const MAX_QUEUE_HANDLES = 5_000;

export function queueHandle(client: RedisClient, prefix: string, name: string): Queue {
  let byQueue = handles.get(client);
  if (!byQueue) {
    byQueue = new Map();
    handles.set(client, byQueue);
  }
  const key = `${prefix}\u0000${name}`;
  const cached = byQueue.get(key);
  if (cached) return cached;

  const before = new Set(client.listeners('error'));
  const queue = new Queue(name, { connection: client, prefix, skipMetasUpdate: true });
  for (const listener of client.listeners('error')) {
    if (!before.has(listener)) client.off('error', listener as (error: Error) => void);
  }

  byQueue.set(key, queue);
  if (byQueue.size > MAX_QUEUE_HANDLES) {
    const oldest = byQueue.keys().next().value;
    if (oldest !== undefined) {
      // A shared client is never quit by Queue.close(); this only marks the handle closed.
      void byQueue.get(oldest)?.close();
      byQueue.delete(oldest);
    }
  }
  return queue;
}
