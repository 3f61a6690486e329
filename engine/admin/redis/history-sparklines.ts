/**
 * The overview's sparklines from the timing history (docs/metrics.md, "Timing history"): each
 * queue's completed, failed and retried jobs per minute over the last hour, the minute under
 * way last.
 *
 * getQueueHistory answers the same counts, but reads whole hashes (HGETALL): an hour of minutes
 * holds every job name's outcomes and duration buckets, tens of thousands of fields on a busy
 * queue, which an overview polling a hundred queues every few seconds cannot afford. This read
 * asks for the queue-wide outcome fields only: one pipeline per queue of one HMGET per hash the
 * hour touches (two at most), 180 fields in all.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { historyField, historyKey, MINUTE_MS, SERIES, slotStart } from '../../history/history-keys';
import { historyWindow } from './history-reader';
import { QueueKeys } from '../../queue/keys';
import type { QueueRef } from '../queue-ref';

export interface QueueSparkline extends QueueRef {
  /** Completed jobs per minute, oldest first; the last minute is the one under way. */
  completed: number[];
  /** Jobs failed for good per minute, likewise. */
  failed: number[];
  /** Failed attempts that were retried, per minute. */
  retried: number[];
  /** Whether any worker wrote an outcome in the hour. */
  recorded: boolean;
}

export interface HistorySparklines {
  /** Start of the first minute (ms epoch). */
  from: number;
  stepMs: number;
  queues: QueueSparkline[];
}

type Outcome = 'completed' | 'failed' | 'retried';
const SERIES_READ: readonly [Outcome, string][] = [
  ['completed', SERIES.completed],
  ['failed', SERIES.failed],
  ['retried', SERIES.retried],
];

/**
 * One queue's outcomes per minute over the `minutes` minutes ending with the one under way
 * (oldest first), read as the sparklines read them. The overview's failure-spike problem reads
 * its 75 minutes of failures this way.
 */
export async function readOutcomeMinutes(
  client: RedisClient,
  queue: QueueRef,
  minutes: number,
  now = Date.now(),
): Promise<QueueSparkline> {
  const from = slotStart('minute', now) - (minutes - 1) * MINUTE_MS;
  return readSparkline(client, queue, from, minutes);
}

/** The last hour of outcomes per minute of each queue, one pipeline per queue. */
export async function getHistorySparklines(
  client: RedisClient,
  queues: readonly QueueRef[],
  opts: { now?: number } = {},
): Promise<HistorySparklines> {
  const { from, count } = historyWindow('1h', opts.now ?? Date.now());
  return {
    from,
    stepMs: MINUTE_MS,
    queues: await Promise.all(queues.map((queue) => readSparkline(client, queue, from, count))),
  };
}

async function readSparkline(
  client: RedisClient,
  queue: QueueRef,
  from: number,
  count: number,
): Promise<QueueSparkline> {
  const keys = new QueueKeys(queue.prefix, queue.name);
  // Fields grouped by the hash (hour) holding them, in minute order.
  const perHash = new Map<string, { index: number; outcome: Outcome; field: string }[]>();
  for (let index = 0; index < count; index++) {
    const slot = from + index * MINUTE_MS;
    const key = historyKey(keys, 'minute', slot);
    const fields = perHash.get(key) ?? [];
    for (const [outcome, series] of SERIES_READ) {
      fields.push({ index, outcome, field: historyField(slot, series, '') });
    }
    perHash.set(key, fields);
  }
  // One slot (the queue's), so one pipeline even on a Redis Cluster.
  const pipeline = client.pipeline();
  for (const [key, fields] of perHash) pipeline.hmget(key, ...fields.map((f) => f.field));
  const replies = (await pipeline.exec()) ?? [];

  const counts: Record<Outcome, number[]> = {
    completed: new Array<number>(count).fill(0),
    failed: new Array<number>(count).fill(0),
    retried: new Array<number>(count).fill(0),
  };
  let recorded = false;
  [...perHash.values()].forEach((fields, at) => {
    const [error, values] = replies[at] ?? [null, []];
    if (error) throw error;
    fields.forEach(({ index, outcome }, i) => {
      const text = (values as (string | null)[])[i];
      if (text === null || text === undefined) return;
      recorded = true;
      const value = Number(text);
      if (Number.isFinite(value)) counts[outcome][index] = value;
    });
  });
  return { prefix: queue.prefix, name: queue.name, ...counts, recorded };
}
