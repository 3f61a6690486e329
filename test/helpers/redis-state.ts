/**
 * Raw reads of a queue's Redis state (prefix `bull`, docs/redis-keys.md): its keys, its events stream and
 * its sorted sets, for assertions that do not go through either library.
 */
import type { Redis } from 'ioredis';

export const queueKey = (queueName: string, suffix = '') => `bull:${queueName}:${suffix}`;

/** One events-stream entry: its stream id and its fields as a map. */
export interface StreamEntry {
  id: string;
  fields: Record<string, string>;
}

/** Every entry of a stream, oldest first. */
export async function readStream(redis: Redis, key: string): Promise<StreamEntry[]> {
  const entries = await redis.xrange(key, '-', '+');
  return entries.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { id, fields };
  });
}

/** Every entry of the queue's events stream, oldest first. */
export function streamEntries(redis: Redis, queueName: string): Promise<StreamEntry[]> {
  return readStream(redis, queueKey(queueName, 'events'));
}

/** Stream entries of one event name, as their field maps. */
export async function eventsNamed(
  redis: Redis,
  queueName: string,
  event: string,
): Promise<Record<string, string>[]> {
  return (await streamEntries(redis, queueName))
    .map((e) => e.fields)
    .filter((f) => f.event === event);
}

/** The events of one job, as `{event, ...fields}` objects without the stream id. */
export async function jobEvents(
  redis: Redis,
  queueName: string,
  jobId: string,
): Promise<Record<string, string>[]> {
  return (await streamEntries(redis, queueName))
    .map((entry) => entry.fields)
    .filter((fields) => fields.jobId === jobId);
}

/** The stream's entries reduced to event names (drained included). */
export async function eventNames(redis: Redis, queueName: string): Promise<string[]> {
  return (await streamEntries(redis, queueName)).map((entry) => entry.fields.event ?? '?');
}

/** A sorted set as [member, score] pairs, lowest score first (scores as Redis prints them). */
export async function zsetWithScores(redis: Redis, key: string): Promise<[string, string][]> {
  const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}

/** Every key of the queue (`bull:<queue>:*`), via SCAN, sorted. */
export async function queueKeys(redis: Redis, queueName: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', queueKey(queueName, '*'), 'COUNT', 1000);
    cursor = next;
    keys.forEach((key) => found.add(key));
  } while (cursor !== '0');
  // Live OxMQ workers' heartbeat records are the workers', not the queue's data: no library's
  // obliterate deletes them (a live worker writes them again on its next beat).
  return [...found].filter((key) => !isHeartbeatKey(key, queueName)).sort();
}

function isHeartbeatKey(key: string, queueName: string): boolean {
  const suffix = key.slice(queueKey(queueName).length);
  return suffix === 'oxmq:workers' || suffix.startsWith('oxmq:worker:');
}

/** Suffixes of the queue's own (non-job) keys, docs/redis-keys.md */
const QUEUE_SUFFIXES = new Set([
  'active',
  'wait',
  'waiting-children',
  'paused',
  'id',
  'delayed',
  'prioritized',
  'stalled-check',
  'completed',
  'failed',
  'stalled',
  'repeat',
  'limiter',
  'meta',
  'events',
  'pc',
  'marker',
  'priority',
  'delay',
]);
// `oxmq:history`: the queue's timing and backlog history (docs/redis-keys.md), not a job's.
const QUEUE_SUFFIX_PREFIXES = ['de:', 'dn:', 'metrics:', 'oxmq:history'];

/**
 * Keys that belong to jobs (hash, :logs, :lock, :dependencies, ...), i.e. every queue key that is
 * not one of the queue's own structures. An empty result after removing jobs means nothing leaked.
 */
export async function jobKeys(redis: Redis, queueName: string): Promise<string[]> {
  const base = queueKey(queueName);
  return (await queueKeys(redis, queueName)).filter((key) => {
    const suffix = key.slice(base.length);
    if (QUEUE_SUFFIXES.has(suffix)) return false;
    if (QUEUE_SUFFIX_PREFIXES.some((p) => suffix.startsWith(p))) return false;
    // `repeat:<scheduler>` is a scheduler hash; `repeat:<scheduler>:<millis>` is a job.
    if (suffix.startsWith('repeat:') && suffix.split(':').length === 2) return false;
    return true;
  });
}

/** The job ids owning the given job keys (`<id>` or `<id>:<subkey>`, ids without colons). */
export function jobIdsOf(keys: string[], queueName: string): string[] {
  const base = queueKey(queueName);
  return [...new Set(keys.map((key) => key.slice(base.length).split(':')[0]!))].sort();
}

/** `bull:<base64(queue)>`, the client-name base of the queue's workers (docs/redis-keys.md). */
export function workerNameBase(queueName: string): string {
  return `bull:${Buffer.from(queueName).toString('base64')}`;
}
