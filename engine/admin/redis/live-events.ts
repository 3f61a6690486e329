/**
 * Reading the queues' event streams (`<prefix>:<queue>:events`) for the console's live updates
 *: one XREAD over many streams (on a Cluster, one per slot: pollOnCluster), blocking for a bounded time and returning a
 * bounded number of entries per stream. The caller owns the cursors and the connection, which
 * must be a dedicated one: XREAD BLOCK holds it for the whole wait.
 */
import type { Cluster } from 'ioredis';
import { isCluster, type RedisClient } from '../../backend/redis/connection';
import { QueueKeys } from '../../queue/keys';
import { groupBySlot, pipelinePerItem } from './cluster-reads';
import type { QueueRef } from './queues';

export const LIVE_EVENTS_LIMITS = {
  /** Entries read per stream per XREAD: a burst is delivered in slices, never at once. */
  countPerStream: 100,
  /** Longest BLOCK of one read; the reader re-checks what it watches at least this often. */
  blockMs: 1_000,
} as const;

export interface LiveEvent {
  /** Stream entry id. */
  id: string;
  /** bullmq's event name: added, active, completed, failed, progress, paused, ... */
  event: string;
  jobId?: string;
}

export interface LiveEventBatch extends QueueRef {
  events: LiveEvent[];
}

export function eventsKey(queue: QueueRef): string {
  return new QueueKeys(queue.prefix, queue.name).events;
}

/**
 * The newest entry id of each queue's events stream ("0-0" for an empty or missing stream): the
 * cursor from which a new watcher sees only what happens next. One pipelined XREVRANGE COUNT 1
 * per queue.
 */
export async function latestEventIds(
  client: RedisClient,
  queues: readonly QueueRef[],
): Promise<string[]> {
  const replies = await pipelinePerItem(client, queues, (pipeline, queue) =>
    pipeline.xrevrange(eventsKey(queue), '+', '-', 'COUNT', 1),
  );
  return queues.map((_, index) => {
    const [error, rows] = replies[index]?.[0] ?? [null, []];
    if (error) throw error;
    const first = (rows as [string, string[]][])[0];
    return first ? first[0] : '0-0';
  });
}

/**
 * One XREAD BLOCK over the given streams, from each cursor (exclusive). Resolves with the
 * batches that have entries (none after a timeout). Advance the cursors to each batch's last id.
 */
export async function readQueueEvents(
  client: RedisClient,
  cursors: readonly { queue: QueueRef; after: string }[],
  opts: { blockMs?: number; countPerStream?: number } = {},
): Promise<LiveEventBatch[]> {
  if (cursors.length === 0) return [];
  const count = Math.max(
    1,
    Math.min(
      opts.countPerStream ?? LIVE_EVENTS_LIMITS.countPerStream,
      LIVE_EVENTS_LIMITS.countPerStream,
    ),
  );
  const block = Math.max(0, Math.min(opts.blockMs ?? LIVE_EVENTS_LIMITS.blockMs, 60_000));
  const byKey = new Map(cursors.map((cursor) => [eventsKey(cursor.queue), cursor.queue]));
  const reply = isCluster(client)
    ? await pollOnCluster(client, cursors, count, block)
    : await client.xread(
        'COUNT',
        count,
        'BLOCK',
        block,
        'STREAMS',
        ...cursors.map((cursor) => eventsKey(cursor.queue)),
        ...cursors.map((cursor) => cursor.after),
      );
  if (!reply) return [];
  const batches: LiveEventBatch[] = [];
  for (const [key, entries] of reply) {
    const queue = byKey.get(key);
    if (!queue) continue;
    batches.push({
      prefix: queue.prefix,
      name: queue.name,
      events: entries.map(([id, flat]) => toEvent(id, flat)),
    });
  }
  return batches;
}

type XReadReply = [key: string, entries: [id: string, fields: string[]][]][];

/** How often a read on a Cluster looks again while nothing has happened. */
const CLUSTER_POLL_MS = 200;

/**
 * XREAD on a Cluster: one command may name the streams of one slot only, and a blocked read
 * holds the node's one connection of the client, so reads of several slots on one master would
 * wait for each other. Instead, a non-blocking XREAD per slot, all at once, again every
 * CLUSTER_POLL_MS until something arrives or `block` has passed.
 */
async function pollOnCluster(
  client: Cluster,
  cursors: readonly { queue: QueueRef; after: string }[],
  count: number,
  block: number,
): Promise<XReadReply | null> {
  const groups = groupBySlot(cursors, (cursor) => eventsKey(cursor.queue));
  const deadline = Date.now() + block;
  for (;;) {
    const replies = await Promise.all(
      groups.map((group) =>
        client.xread(
          'COUNT',
          count,
          'STREAMS',
          ...group.map((cursor) => eventsKey(cursor.queue)),
          ...group.map((cursor) => cursor.after),
        ),
      ),
    );
    const entries = replies.flatMap((reply) => (reply ?? []) as XReadReply);
    if (entries.length > 0) return entries;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, CLUSTER_POLL_MS)));
  }
}

function toEvent(id: string, flat: string[]): LiveEvent {
  let event = '';
  let jobId: string | undefined;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    if (flat[i] === 'event') event = flat[i + 1]!;
    else if (flat[i] === 'jobId') jobId = flat[i + 1];
  }
  return jobId === undefined ? { id, event } : { id, event, jobId };
}
