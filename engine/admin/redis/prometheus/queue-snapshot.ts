/**
 * Everything the Prometheus families say about one queue, read with one pipeline (one round
 * trip): a scrape of hundreds of queues must not cost hundreds of round trips each.
 *
 * The reads are queued on a pipeline the caller owns, so a caller may add its own commands to
 * the same round trip (exportQueuePrometheusMetrics adds CLIENT LIST).
 *
 * The oldest waiting job. Which jobs: the heads of the lines, i.e. the tail of `wait` (workers
 * pop the tail) and the first of `prioritized` (the next prioritized job to run), whichever was
 * added earlier. Reading a whole list to find its oldest timestamp would cost its length per
 * scrape; the head of a FIFO line is its oldest job (LIFO jobs and retries jump the line).
 * - Paused: bullmq 6 keeps a paused queue's jobs in `wait`, so a paused backlog ages too, and
 *   `oxmq_queue_paused` tells the two apart. The legacy `paused` list of bullmq 5 is not read:
 *   nothing of bullmq 6 or OxMQ writes it (docs/redis-keys.md).
 * - Tenant groups: their ready jobs count as `waiting` and their delayed ones as `delayed`
 *   (bullmq has no groups, so its counts cannot see them), and the head of each group's line is
 *   one of the heads; read by one script in the same pipeline (lua/countGroupedJobs-1.lua).
 * - Age is from the job's `timestamp` (when it was added). Both libraries zero a job's `delay`
 *   when they promote it, so a delayed job counts from when it was added, its delay included:
 *   an alert on this age should allow for the longest delay a queue uses.
 *
 * Reading a job's hash needs its id first. SORT ... BY nosort LIMIT with GET patterns does both
 * in one command, in O(1) for these heads (Redis walks only the LIMIT range when it does not
 * sort). Its patterns substitute the first `*`, so a prefix or queue name containing `*` cannot
 * be expressed that way: such a queue reads the heads' ids in the pipeline and their hashes in
 * a second, small round trip, as does every queue on a Cluster.
 */
import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from '../../../backend/redis/connection';
import { DEFAULT_COUNT_STATES } from '../../../backend/queue-operations';
import { QueueKeys } from '../../../queue/keys';
import { parseGroupedCounts, queueGroupedCounts } from '../../../backend/redis/grouped-counts';
import { lastClosedMinuteCount, type MetricsHashReading } from './closed-minute';

/** The states bullmq 6.7's exportPrometheusMetrics counts, in its order. */
export const BULLMQ_COUNT_STATES = DEFAULT_COUNT_STATES;

export type BullmqCountState = (typeof BULLMQ_COUNT_STATES)[number];

interface FinishedCounter {
  /** The metrics hash's running `count` (0 when no worker with `metrics` ever wrote it). */
  total: number;
  /** Jobs finished in the last closed minute before the read (see closed-minute.ts). */
  lastMinute: number;
}

export interface QueueSnapshot {
  prefix: string;
  name: string;
  /** Keys in BULLMQ_COUNT_STATES order. */
  counts: Record<BullmqCountState, number>;
  paused: boolean;
  /** Milliseconds the rate limiter still holds job starts back; 0 when it does not. */
  rateLimitTtlMs: number;
  /** Meta `concurrency`; null when the queue sets none. */
  globalConcurrency: number | null;
  completed: FinishedCounter;
  failed: FinishedCounter;
  /** Seconds since the oldest waiting job was added; 0 when none waits. */
  oldestWaitingAgeSeconds: number;
}

/** One reply of ioredis' pipeline exec(). */
export type PipelineReply = [error: Error | null, result: unknown];

export interface SnapshotReads {
  /** How many replies, from where the reads were queued, belong to this queue. */
  readonly size: number;
  /** Turns this queue's replies (exactly `size`, in order) into its snapshot. */
  finish(replies: readonly PipelineReply[], now: number): Promise<QueueSnapshot>;
}

/** Two from the tail of wait: the tail may be a bullmq 4/5 `0:<delay>` marker, not a job. */
const WAIT_HEADS = 2;

/**
 * Queues one queue's reads on `pipeline`; the keys are built (and validated) by QueueKeys. The
 * pipeline must come from a client that had registerScripts (engine/scripts/loader.ts) first.
 */
export function queueSnapshotReads(
  client: RedisClient,
  pipeline: ChainableCommander,
  prefix: string,
  name: string,
): SnapshotReads {
  const keys = new QueueKeys(prefix, name);
  const first = pipeline.length;
  const stateKey = (state: BullmqCountState) => keys.base + (state === 'waiting' ? 'wait' : state);
  for (const state of BULLMQ_COUNT_STATES) {
    if (state === 'active' || state === 'waiting') pipeline.llen(stateKey(state));
    else pipeline.zcard(stateKey(state));
  }
  pipeline.hmget(keys.meta, 'paused', 'concurrency', 'max');
  pipeline.get(keys.limiter);
  pipeline.pttl(keys.limiter);
  for (const type of ['completed', 'failed'] as const) {
    pipeline.hmget(keys.metrics(type), 'count', 'prevTS', 'prevCount');
    pipeline.lindex(`${keys.metrics(type)}:data`, 0);
  }
  // Only the first `*` of a SORT pattern is substituted: the job key must not hold another. On
  // a Cluster, ioredis takes BY's `nosort` for a key of another slot and refuses the pipeline.
  const sortable = !keys.base.includes('*') && !isCluster(client);
  if (sortable) {
    const gets = ['GET', '#', 'GET', `${keys.base}*->timestamp`];
    pipeline.call('SORT', keys.wait, 'BY', 'nosort', 'DESC', 'LIMIT', 0, WAIT_HEADS, ...gets);
    pipeline.call('SORT', keys.prioritized, 'BY', 'nosort', 'LIMIT', 0, 1, ...gets);
  } else {
    pipeline.lrange(keys.wait, -WAIT_HEADS, -1);
    pipeline.zrange(keys.prioritized, 0, 0);
  }
  queueGroupedCounts(pipeline, keys);
  const size = pipeline.length - first;

  return {
    size,
    async finish(replies, now) {
      if (replies.length !== size) {
        throw new Error(`expected ${size} replies, got ${replies.length}`);
      }
      const values = replies.map((reply) => (refusedForMemory(reply) ? null : valueOf(reply)));
      let at = 0;
      const counts = {} as Record<BullmqCountState, number>;
      for (const state of BULLMQ_COUNT_STATES) counts[state] = Number(values[at++]) || 0;
      const [paused, concurrency, max] = strings(values[at++]);
      const limiterCount = values[at++];
      const limiterTtl = Number(values[at++]);
      const completed = metricsReading(values[at++], values[at++]);
      const failed = metricsReading(values[at++], values[at++]);

      let waitHeads: JobTime[];
      let prioritizedHeads: JobTime[];
      if (sortable && refusedForMemory(replies[at]) && refusedForMemory(replies[at + 1])) {
        // Redis counts SORT as a write (it may STORE) and refuses it at maxmemory: the heads
        // are read the long way then, so a scrape still describes a full Redis.
        const heads = await client
          .pipeline()
          .lrange(keys.wait, -WAIT_HEADS, -1)
          .zrange(keys.prioritized, 0, 0)
          .exec();
        const [waitIds, prioritizedIds] = (heads ?? []).map(valueOf).map(strings);
        [waitHeads, prioritizedHeads] = await readJobTimes(
          client,
          keys,
          (waitIds ?? []).reverse(),
          prioritizedIds ?? [],
        );
      } else if (sortable) {
        waitHeads = sortedJobTimes(values[at++]);
        prioritizedHeads = sortedJobTimes(values[at++]);
      } else {
        // LRANGE lists the tail last; the tail is the head of the line.
        const waitIds = strings(values[at++]).reverse();
        const prioritizedIds = strings(values[at++]);
        [waitHeads, prioritizedHeads] = await readJobTimes(client, keys, waitIds, prioritizedIds);
      }

      // A legacy marker at the tail of wait is not a job (bullmq's counts leave it out too).
      if (waitHeads[0] && isLegacyMarker(waitHeads[0].id)) {
        counts.waiting = Math.max(0, counts.waiting - 1);
      }
      const grouped = parseGroupedCounts(valueOf(replies[size - 1]!));
      counts.waiting += grouped.waiting;
      counts.delayed += grouped.delayed;
      const waitHead = waitHeads.find((head) => !isLegacyMarker(head.id));
      const added = [
        waitHead?.addedAt,
        prioritizedHeads[0]?.addedAt,
        grouped.oldestWaitingAt ?? undefined,
      ].filter((time): time is number => time !== undefined);
      const oldest = added.length > 0 ? Math.min(...added) : null;

      return {
        prefix,
        name,
        counts,
        paused: paused !== null,
        rateLimitTtlMs: rateLimitTtl(limiterCount, limiterTtl, max ?? null),
        globalConcurrency: numberOrNull(concurrency ?? null),
        completed: { total: completed.count, lastMinute: lastClosedMinuteCount(completed, now) },
        failed: { total: failed.count, lastMinute: lastClosedMinuteCount(failed, now) },
        oldestWaitingAgeSeconds: oldest === null ? 0 : Math.max(0, now - oldest) / 1000,
      };
    },
  };
}

interface JobTime {
  id: string;
  /** The job's `timestamp`, ms; undefined when its hash is gone or holds no number there. */
  addedAt: number | undefined;
}

function refusedForMemory(reply: PipelineReply | undefined): boolean {
  return reply?.[0]?.message.startsWith('OOM ') === true;
}

function valueOf([error, value]: PipelineReply): unknown {
  if (error) throw error;
  return value;
}

/** A reply that is a list of bulk strings, nils kept as null. */
function strings(value: unknown): (string | null)[] {
  if (!Array.isArray(value)) return [];
  return value.map((item) => (item === null || item === undefined ? null : String(item)));
}

function isLegacyMarker(id: string): boolean {
  return id.startsWith('0:');
}

function timeOf(timestamp: string | null | undefined): number | undefined {
  if (timestamp === null || timestamp === undefined || timestamp === '') return undefined;
  const time = Number(timestamp);
  return Number.isFinite(time) ? time : undefined;
}

/** The reply of SORT ... GET # GET <job>->timestamp: an id and a timestamp per job. */
function sortedJobTimes(value: unknown): JobTime[] {
  const flat = strings(value);
  const times: JobTime[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const id = flat[i];
    if (id !== null && id !== undefined) times.push({ id, addedAt: timeOf(flat[i + 1]) });
  }
  return times;
}

/** The follow-up round trip of a queue whose keys SORT patterns cannot name. */
async function readJobTimes(
  client: RedisClient,
  keys: QueueKeys,
  waitIds: (string | null)[],
  prioritizedIds: (string | null)[],
): Promise<[JobTime[], JobTime[]]> {
  const ids = [...waitIds, ...prioritizedIds].filter((id): id is string => id !== null);
  const times = new Map<string, number | undefined>();
  if (ids.length > 0) {
    const pipeline = client.pipeline();
    for (const id of ids) pipeline.hget(keys.job(id), 'timestamp');
    const replies = ((await pipeline.exec()) ?? []) as PipelineReply[];
    ids.forEach((id, index) => {
      const reply = replies[index];
      times.set(id, reply ? timeOf(valueOf(reply) as string | null) : undefined);
    });
  }
  const of = (list: (string | null)[]) =>
    list.flatMap((id) => (id === null ? [] : [{ id, addedAt: times.get(id) }]));
  return [of(waitIds), of(prioritizedIds)];
}

/** bullmq's getMetrics parses the hash with parseInt(value || '0'); the head with +value || 0. */
function metricsReading(hash: unknown, head: unknown): MetricsHashReading {
  const [count, prevTS, prevCount] = strings(hash).map((value) => parseInt(value || '0', 10));
  return {
    count: count ?? 0,
    prevTS: prevTS ?? 0,
    prevCount: prevCount ?? 0,
    head: head === null || head === undefined ? null : Number(head) || 0,
  };
}

/**
 * As Queue.getRateLimitTtl without an argument: with a queue-wide `max` in meta, the limiter's
 * PTTL only once its counter has reached that max (a manual rateLimit(ms) stores a counter above
 * any max); without one, the PTTL of the key as it is (a worker's own `limiter` option is not
 * stored anywhere a scrape could read it). PTTL's -1/-2 (no expiry, no key) become 0.
 */
function rateLimitTtl(counter: unknown, ttl: number, max: string | null): number {
  if (!(ttl > 0)) return 0;
  const limit = max === null || max === '' ? NaN : Number(max);
  if (Number.isNaN(limit)) return ttl;
  return Number(counter ?? 0) >= limit ? ttl : 0;
}

function numberOrNull(value: string | null): number | null {
  if (value === null || value === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
