/**
 * Queue discovery and per-queue overview for the console.
 *
 * Discovery never uses KEYS: it SCANs for `<prefix>:*:meta` (every bullmq and OxMQ queue writes
 * its meta hash when a Queue or Worker is created) with a hard budget on the keys examined, and
 * says whether it saw the whole keyspace. Overviews reuse the engine's Queue methods, so counts
 * mean exactly what bullmq's getJobCounts means.
 */
import { isCluster, type RedisClient } from '../../backend/redis/connection';
import { parseGroupedCounts, queueGroupedCounts } from '../../backend/redis/grouped-counts';
import type { QueueKeys } from '../../queue/keys';
import { registerScripts } from '../../scripts/loader';
import type { Metrics } from '../../backend/queue-backend';
import type { WorkerInfo } from '../../queue/queue';
import { queueHandle } from '../queue-handle';
import { readOutcomeMinutes } from './history-sparklines';
import { missingWorkers, recentStalls } from './problem-signals';
import { FAILURE_SPIKE_MINUTES, queueProblems, type QueueProblem } from '../queue-problems';
import type { QueueRef } from '../queue-ref';
import { rateLimitHoldMs } from './rate-limit-hold';
import { listWorkers } from './workers';

export const QUEUE_SCAN_DEFAULTS = {
  /** Keys examined in total, over all prefixes, before discovery stops. */
  maxScan: 100_000,
  /** SCAN's COUNT hint per round trip. */
  scanCount: 1_000,
  /** Minutes of completed/failed metrics an overview carries (bullmq keeps up to its maxDataPoints). */
  metricsMinutes: 60,
} as const;

export type { QueueRef } from '../queue-ref';

export interface ListQueuesOptions {
  maxScan?: number;
  scanCount?: number;
}

export interface QueueList {
  /** Sorted by prefix, then name; no duplicates. */
  queues: QueueRef[];
  /** False when the scan budget ran out before every prefix was scanned to the end. */
  complete: boolean;
  /** Keys examined (SCAN COUNT hints summed, an upper bound on the work done). */
  scanned: number;
}

/** Escapes the glob characters SCAN MATCH interprets, so a prefix is matched literally. */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

export async function listQueues(
  client: RedisClient,
  prefixes: readonly string[],
  opts: ListQueuesOptions = {},
): Promise<QueueList> {
  const maxScan = opts.maxScan ?? QUEUE_SCAN_DEFAULTS.maxScan;
  const scanCount = Math.max(1, Math.min(opts.scanCount ?? QUEUE_SCAN_DEFAULTS.scanCount, maxScan));
  const found = new Map<string, QueueRef>();
  let scanned = 0;
  let complete = true;

  // SCAN walks one server's keys: on a Cluster, every master holds part of the queues.
  const servers = isCluster(client) ? client.nodes('master') : [client];
  for (const prefix of prefixes) {
    for (const server of servers) {
      const pattern = `${escapeGlob(prefix)}:*:meta`;
      let cursor = '0';
      let finished = false;
      while (scanned < maxScan) {
        const count = Math.min(scanCount, maxScan - scanned);
        const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', count);
        scanned += count;
        for (const key of keys) {
          const name = key.slice(prefix.length + 1, -':meta'.length);
          // Queue names cannot contain ':'; a longer match is some other key ending in :meta.
          if (name === '' || name.includes(':')) continue;
          found.set(`${prefix}\u0000${name}`, { prefix, name });
        }
        cursor = next;
        if (cursor === '0') {
          finished = true;
          break;
        }
      }
      if (!finished) complete = false;
    }
  }

  const queues = [...found.values()].sort(
    (a, b) => a.prefix.localeCompare(b.prefix) || a.name.localeCompare(b.name),
  );
  return { queues, complete, scanned };
}

/** bullmq's getJobCounts states; `paused` is a flag in bullmq 6 (jobs stay in wait). */
export const QUEUE_COUNT_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'completed',
  'failed',
  'waiting-children',
] as const;

export type QueueCountState = (typeof QUEUE_COUNT_STATES)[number];

export interface QueueWorker {
  /** Redis client id. */
  id?: string;
  /** The Worker's `name` option, when it has one. */
  workerName?: string;
  addr?: string;
  /** Seconds since the connection was opened. */
  age?: number;
}

export interface QueueMetricsSeries {
  /** Jobs per closed minute, oldest first (ready to plot), at most `metricsMinutes` points. */
  perMinute: number[];
  /**
   * Jobs finished since the last closed minute. bullmq's layout only pushes a minute's point when
   * a job finishes in a later minute, so the newest activity lives here until then.
   */
  pending: number;
  /**
   * Start of the minute `pending` belongs to (the last minute boundary bullmq recorded); null
   * when nothing was recorded. A chart leaves it out while that minute is still under way.
   */
  pendingSince: number | null;
  /** Total count the metrics key has seen. */
  total: number;
}

export interface QueueOverview extends QueueRef {
  counts: Record<QueueCountState, number>;
  paused: boolean;
  /** The queue-wide limit from meta (setGlobalRateLimit or a worker's limiter), if any. */
  rateLimit: { max: number; duration: number } | null;
  /** True while the limiter holds job starts back; `rateLimitTtlMs` is how long still. */
  rateLimited: boolean;
  rateLimitTtlMs: number;
  globalConcurrency: number | null;
  workers: QueueWorker[];
  metrics: { completed: QueueMetricsSeries; failed: QueueMetricsSeries };
  /** The library and version that last wrote meta (e.g. "bullmq:6.7.0"). */
  version: string | null;
  /** ms since epoch the oldest job in the wait list was created; null when the list is empty. */
  oldestWaitingAt: number | null;
  /**
   * What is wrong with the queue (engine/admin/queue-problems.ts), most severe first; empty when
   * nothing.
   */
  problems: QueueProblem[];
}

export interface QueueOverviewOptions {
  metricsMinutes?: number;
  /**
   * The queue's connected workers, when the caller read them for many queues at once (one
   * CLIENT LIST per request: getQueueOverviews); read for this queue alone otherwise.
   */
  workers?: QueueWorker[];
  /** Minutes after which a waiting job makes an "old backlog" problem. */
  oldBacklogMinutes?: number;
  now?: number;
}

/**
 * The failure-spike input from the timing history (minutes oldest first, the one under way
 * last), which every OxMQ worker writes whatever its `metrics` option. bullmq's metrics lists
 * are the fallback for queues only bullmq workers serve, when they keep metrics.
 */
function failuresFromHistory(perMinute: readonly number[]) {
  return { newestFirst: perMinute.slice(0, -1).reverse(), pending: perMinute.at(-1) ?? 0 };
}

/** Whether the queue's meta hash exists: the console never creates keys for a mistyped name. */
export async function queueExists(
  client: RedisClient,
  prefix: string,
  name: string,
): Promise<boolean> {
  return (await client.exists(queueHandle(client, prefix, name).keys.meta)) === 1;
}

export async function getQueueOverview(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: QueueOverviewOptions = {},
): Promise<QueueOverview> {
  const minutes = opts.metricsMinutes ?? QUEUE_SCAN_DEFAULTS.metricsMinutes;
  const queue = queueHandle(client, prefix, name);
  // Failed metrics are read a little further back than the sparkline shows, so a failure spike
  // (the last minutes against the hour before) comes from the same one LRANGE.
  const failedMinutes = Math.max(minutes, FAILURE_SPIKE_MINUTES);
  const now = opts.now ?? Date.now();
  const [
    counts,
    meta,
    rateLimitTtl,
    workers,
    completed,
    failed,
    oldestWaitingAt,
    stalls,
    missing,
    recentOutcomes,
  ] = await Promise.all([
    queue.getJobCounts(...QUEUE_COUNT_STATES),
    queue.getMeta(),
    rateLimitHoldMs(client, queue),
    opts.workers ?? queueWorkers(client, prefix, name),
    queue.getMetrics('completed', 0, minutes - 1),
    queue.getMetrics('failed', 0, failedMinutes - 1),
    oldestWaitingTimestamp(client, queue.keys),
    recentStalls(client, queue.keys, now),
    missingWorkers(client, queue.keys, now),
    readOutcomeMinutes(client, { prefix, name }, FAILURE_SPIKE_MINUTES, now),
  ]);
  const max = numberOrNull(meta.max);
  const duration = numberOrNull(meta.duration);
  const jobCounts = toCounts(counts);
  const rateLimited = rateLimitTtl > 0;
  const rateLimitTtlMs = Math.max(0, rateLimitTtl);
  const problems = queueProblems(
    {
      counts: jobCounts,
      paused: meta.paused,
      rateLimited,
      rateLimitTtlMs,
      workerCount: workers.length,
      oldestWaitingAt,
      failedMetrics: recentOutcomes.recorded
        ? failuresFromHistory(recentOutcomes.failed)
        : { newestFirst: failed.data, pending: pendingOf(failed) },
      recentStalls: stalls,
      missingWorkers: missing.length,
    },
    { now, oldBacklogMinutes: opts.oldBacklogMinutes },
  );
  return {
    prefix,
    name,
    counts: jobCounts,
    paused: meta.paused,
    rateLimit: max !== null && duration !== null ? { max, duration } : null,
    rateLimited,
    rateLimitTtlMs,
    globalConcurrency: numberOrNull(meta.concurrency),
    workers,
    metrics: {
      completed: toSeries(completed),
      failed: toSeries({ ...failed, data: failed.data.slice(0, minutes) }),
    },
    version: typeof meta.version === 'string' ? meta.version : null,
    oldestWaitingAt,
    problems,
  };
}

/**
 * The creation time of the oldest job next in line: the wait list's tail (the next one a worker
 * takes, and the oldest, since producers push at the head), and the head of every tenant group's
 * line. One LINDEX and one HGET for the wait list, however long it is; the groups cost a few
 * reads per group with ready jobs (engine/backend/redis/grouped-counts.ts).
 */
async function oldestWaitingTimestamp(
  client: RedisClient,
  keys: QueueKeys,
): Promise<number | null> {
  registerScripts(client);
  const pipeline = client.pipeline();
  pipeline.lindex(keys.wait, -1);
  queueGroupedCounts(pipeline, keys);
  const replies = (await pipeline.exec()) ?? [];
  const [[waitError, id] = [], [groupError, grouped] = []] = replies;
  if (waitError) throw waitError;
  if (groupError) throw groupError;
  const plain = id ? numberOrNull(await client.hget(keys.base + String(id), 'timestamp')) : null;
  const inGroups = parseGroupedCounts(grouped).oldestWaitingAt;
  if (plain === null) return inGroups;
  return inGroups === null ? plain : Math.min(plain, inGroups);
}

/** Overviews of many queues with one CLIENT LIST for all of them, not one per queue. */
export async function getQueueOverviews(
  client: RedisClient,
  queues: readonly QueueRef[],
  opts: Omit<QueueOverviewOptions, 'workers'> = {},
): Promise<QueueOverview[]> {
  const connected = await listWorkers(client, queues);
  return Promise.all(
    queues.map((queue, index) =>
      getQueueOverview(client, queue.prefix, queue.name, {
        ...opts,
        workers: (connected[index]?.workers ?? []).map((worker) => ({
          id: worker.id,
          workerName: worker.workerName,
          addr: worker.addr,
          age: worker.age,
        })),
      }),
    ),
  );
}

/**
 * The queue's connected workers. Queue.getWorkers() sends CLIENT LIST to any node, which on a
 * Cluster may not be the one the queue's workers are connected to: there listWorkers asks the
 * queue's master.
 */
async function queueWorkers(client: RedisClient, prefix: string, name: string) {
  if (!isCluster(client)) {
    return (await queueHandle(client, prefix, name).getWorkers()).map(toQueueWorker);
  }
  const [entry] = await listWorkers(client, [{ prefix, name }]);
  return (entry?.workers ?? []).map(({ id, workerName, addr, age }) => ({
    id,
    workerName,
    addr,
    age,
  }));
}

function toQueueWorker(worker: WorkerInfo): QueueWorker {
  return {
    id: worker.id,
    workerName: worker.workerName,
    addr: worker.addr,
    age: worker.age === undefined ? undefined : Number(worker.age),
  };
}

function toCounts(raw: Record<string, number>): Record<QueueCountState, number> {
  const counts = {} as Record<QueueCountState, number>;
  for (const state of QUEUE_COUNT_STATES) counts[state] = raw[state] ?? 0;
  return counts;
}

function toSeries(metrics: Metrics): QueueMetricsSeries {
  return {
    perMinute: [...metrics.data].reverse(),
    pending: pendingOf(metrics),
    pendingSince:
      metrics.meta.prevTS > 0 ? Math.floor(metrics.meta.prevTS / 60_000) * 60_000 : null,
    total: metrics.meta.count,
  };
}

function pendingOf(metrics: Metrics): number {
  return Math.max(0, metrics.meta.count - metrics.meta.prevCount);
}

function numberOrNull(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Pauses a queue (bullmq 6 semantics: a meta flag plus a `paused` event). */
export async function pauseQueue(client: RedisClient, prefix: string, name: string): Promise<void> {
  await queueHandle(client, prefix, name).pause();
}

export async function resumeQueue(
  client: RedisClient,
  prefix: string,
  name: string,
): Promise<void> {
  await queueHandle(client, prefix, name).resume();
}
