/**
 * Helpers for the interop cases about queue administration, locks and listings (spec §15 cases
 * 17, 18, 21, 23, 26, 27, 29, 30): raw reads of a queue's keys and events stream, and a gate a
 * processor can wait on.
 */
import type { Redis } from 'ioredis';

export interface StreamEntry {
  id: string;
  fields: Record<string, string>;
}

/** Every entry of the queue's events stream, oldest first. */
export async function streamEntries(redis: Redis, queueName: string): Promise<StreamEntry[]> {
  const entries = await redis.xrange(`bull:${queueName}:events`, '-', '+');
  return entries.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    return { id, fields };
  });
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

/** Every key of the queue (`bull:<queue>:*`), via SCAN, sorted. */
export async function queueKeys(redis: Redis, queueName: string): Promise<string[]> {
  const found = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `bull:${queueName}:*`, 'COUNT', 1000);
    cursor = next;
    keys.forEach((key) => found.add(key));
  } while (cursor !== '0');
  return [...found].sort();
}

/** Suffixes of the queue's own (non-job) keys, spec §1. */
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
const QUEUE_SUFFIX_PREFIXES = ['de:', 'dn:', 'metrics:'];

/**
 * Keys that belong to jobs (hash, :logs, :lock, :dependencies, ...), i.e. every queue key that is
 * not one of the queue's own structures. An empty result after removing jobs means nothing leaked.
 */
export async function jobKeys(redis: Redis, queueName: string): Promise<string[]> {
  const base = `bull:${queueName}:`;
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
  const base = `bull:${queueName}:`;
  return [...new Set(keys.map((key) => key.slice(base.length).split(':')[0]!))].sort();
}

/** A promise a processor can await and the test resolves when it wants the job to finish. */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** `bull:<base64(queue)>`, the client-name base of the queue's workers (spec §13.2). */
export function workerNameBase(queueName: string): string {
  return `bull:${Buffer.from(queueName).toString('base64')}`;
}
