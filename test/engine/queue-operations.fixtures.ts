/** Shared set-up for the queue-operations tests: a queue, its backend and raw-state readers. */
import { Queue as BullQueue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import type { NewJob } from 'oxmq/internals';
import { RedisQueueBackend } from 'oxmq/internals';
import { RedisQueueOperations } from 'oxmq/internals';
import { QueueKeys } from 'oxmq/internals';
import { registerScripts } from 'oxmq/internals';
import { newJob } from '../helpers/new-job';
import { rawClient, redisOptions, uniqueQueueName } from '../helpers/redis';
import { queueKeys as fullQueueKeys, queueKey, readStream } from '../helpers/redis-state';

type Closable = { quit(): Promise<unknown> } | { close(): Promise<unknown> };

/** Closes everything created in a test when it ends. */
export function useClosables() {
  const open: Closable[] = [];
  afterEach(async () => {
    const items = open.splice(0).reverse();
    for (const item of items) {
      if ('close' in item) await item.close();
      else await item.quit();
    }
  });
  return <T extends Closable>(item: T): T => {
    open.push(item);
    return item;
  };
}

export interface TestQueue {
  name: string;
  client: Redis;
  keys: QueueKeys;
  backend: RedisQueueBackend;
  ops: RedisQueueOperations;
}

export function makeQueue(
  track: ReturnType<typeof useClosables>,
  label = 'ops',
  name = uniqueQueueName(label),
): TestQueue {
  const client = track(rawClient());
  // RedisQueueBackend.addJobs queues scripts on a pipeline without registering them first.
  registerScripts(client);
  const keys = new QueueKeys('bull', name);
  return {
    name,
    client,
    keys,
    backend: new RedisQueueBackend(client, keys),
    ops: new RedisQueueOperations(client, keys),
  };
}

export function bullQueue(track: ReturnType<typeof useClosables>, name: string): BullQueue {
  return track(new BullQueue(name, { connection: redisOptions() }));
}

export { newJob };

export async function addJobs(q: TestQueue, jobs: Partial<NewJob>[]): Promise<string[]> {
  const results = await q.backend.addJobs(jobs.map((job) => newJob(job)));
  return results.map((r) => r.jobId);
}

/** Moves the next job to active (locked with `token`) and returns its id. */
export async function activate(q: TestQueue, token = 't1'): Promise<string> {
  const result = await q.backend.fetchNextJob({ token, lockDuration: 30_000 });
  if (result.kind !== 'job') throw new Error('no job to activate');
  return result.jobId;
}

/** Activates the next job and finishes it; `finishedOn` can be set in the past. */
export async function finishNext(
  q: TestQueue,
  outcome: 'completed' | 'failed',
  finishedOn = Date.now(),
): Promise<string> {
  const jobId = await activate(q, 'tf');
  await q.backend.finishJob({
    jobId,
    token: 'tf',
    outcome,
    value: outcome === 'completed' ? '"done"' : 'boom',
    keep: { count: -1 },
    attempts: 0,
    now: finishedOn,
  });
  return jobId;
}

/** Every key of the queue (SCAN), sorted, without the `bull:<name>:` part. */
export async function queueKeys(client: Redis, name: string): Promise<string[]> {
  const prefix = queueKey(name);
  return (await fullQueueKeys(client, name)).map((key) => key.slice(prefix.length));
}

/** Keys that belong to jobs (hashes and their sub-keys), per docs/redis-keys.md */
export async function jobKeys(client: Redis, name: string): Promise<string[]> {
  const queueOwn = new Set([
    'wait',
    'paused',
    'meta',
    'id',
    'delayed',
    'prioritized',
    'pc',
    'marker',
    'events',
    'active',
    'completed',
    'failed',
    'stalled',
    'stalled-check',
    'limiter',
    'repeat',
    'waiting-children',
    'metrics:completed',
    'metrics:completed:data',
    'metrics:failed',
    'metrics:failed:data',
  ]);
  return (await queueKeys(client, name)).filter(
    (key) =>
      !queueOwn.has(key) &&
      !key.startsWith('de:') &&
      !key.startsWith('dn:') &&
      !key.startsWith('oxmq:history') &&
      !/^repeat:[^:]+$/.test(key),
  );
}

export async function events(client: Redis, keys: QueueKeys): Promise<Record<string, string>[]> {
  return (await readStream(client, keys.events)).map((entry) => entry.fields);
}

/** Events after the first `skip`, without the ones adds wrote. */
export async function eventsSince(
  client: Redis,
  keys: QueueKeys,
  skip: number,
): Promise<Record<string, string>[]> {
  return (await events(client, keys)).slice(skip);
}

export async function zmembers(client: Redis, key: string): Promise<string[]> {
  return client.zrange(key, 0, -1);
}

export async function zscores(client: Redis, key: string): Promise<Record<string, number>> {
  const flat = await client.zrange(key, 0, -1, 'WITHSCORES');
  const out: Record<string, number> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = Number(flat[i + 1]);
  return out;
}

/**
 * A comparable picture of a queue's state: key names, list/zset members in order, hash field
 * names (values of the stable ones), event names with their job-related fields. Times, scores and
 * stream ids are left out so twin queues built a few ms apart compare equal.
 */
export async function snapshot(client: Redis, name: string): Promise<Record<string, unknown>> {
  const prefix = `bull:${name}:`;
  const picture: Record<string, unknown> = {};
  const stable = new Set([
    'name',
    'data',
    'delay',
    'priority',
    'atm',
    'ats',
    'returnvalue',
    'failedReason',
    'paused',
    'concurrency',
    'deid',
  ]);
  for (const key of await queueKeys(client, name)) {
    const full = prefix + key;
    const type = await client.type(full);
    if (type === 'list') picture[key] = await client.lrange(full, 0, -1);
    else if (type === 'zset')
      picture[key] =
        key === 'marker' ? await client.zrange(full, 0, -1) : await client.zrange(full, 0, -1);
    else if (type === 'set') picture[key] = (await client.smembers(full)).sort();
    else if (type === 'hash') {
      const hash = await client.hgetall(full);
      const fields: Record<string, string> = {};
      for (const field of Object.keys(hash).sort()) {
        if (key === 'meta' && (field === 'version' || field === 'opts.maxLenEvents')) continue;
        // A scheduler iteration's delay is relative to the moment it was created.
        const timeBound = field === 'delay' && key.startsWith('repeat:');
        fields[field] = stable.has(field) && !timeBound ? hash[field]! : '*';
      }
      picture[key] = fields;
    } else if (type === 'stream') {
      picture[key] = (await readStream(client, full)).map(({ fields }) => {
        const record: Record<string, string> = {};
        for (const [field, value] of Object.entries(fields)) {
          record[field] = ['event', 'jobId', 'prev', 'count', 'name'].includes(field) ? value : '*';
        }
        return record;
      });
    } else picture[key] = type;
  }
  return picture;
}
