/**
 * Reads that span many queues, made to work on a Redis Cluster too. On one server such a read is
 * one pipeline (one round trip), and stays exactly that. On a Cluster an ioredis pipeline must
 * stay on one node, a multi-key command on one slot, and CLIENT LIST describes only the node it
 * is sent to, while the queues (each tagged, so each in one slot) sit on different masters. So
 * there each queue's commands get a pipeline of their own, all sent at once, and a node's
 * clients are read from the node that holds the queue.
 */
import calculateSlot from 'cluster-key-slot';
import type { ChainableCommander, Cluster } from 'ioredis';
import { isCluster, type RedisClient } from '../../backend/redis/connection';

/** One reply of ioredis' pipeline exec(). */
export type PipelineReply = [Error | null, unknown];

/**
 * Queues `queue(pipeline, item)` for each item, whose commands must touch one queue's keys, and
 * answers each item's replies in the items' order.
 */
export async function pipelinePerItem<T>(
  client: RedisClient,
  items: readonly T[],
  queue: (pipeline: ChainableCommander, item: T) => void,
): Promise<PipelineReply[][]> {
  if (items.length === 0) return [];
  if (!isCluster(client)) {
    const pipeline = client.pipeline();
    const sizes = items.map((item) => {
      const before = pipeline.length;
      queue(pipeline, item);
      return pipeline.length - before;
    });
    const replies = ((await pipeline.exec()) ?? []) as PipelineReply[];
    let at = 0;
    return sizes.map((size) => {
      const part = replies.slice(at, at + size);
      at += size;
      return part;
    });
  }
  return Promise.all(
    items.map(async (item) => {
      const pipeline = client.pipeline();
      queue(pipeline, item);
      return ((await pipeline.exec()) ?? []) as PipelineReply[];
    }),
  );
}

/** The Cluster hash slot of `key` (of its hash tag when it has one), as ioredis computes it. */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/**
 * Groups items whose keys are `keyOf(item)` by the master that serves them, as the client's slot
 * map says (by slot while the map is not loaded: more groups, each still on one node).
 */
export function groupByNode<T>(
  cluster: Cluster,
  items: readonly T[],
  keyOf: (item: T) => string,
): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const slot = keySlot(keyOf(item));
    const node = cluster.slots[slot]?.[0] ?? `slot ${slot}`;
    const group = groups.get(node);
    if (group) group.push(item);
    else groups.set(node, [item]);
  }
  return [...groups.values()];
}

/** Items grouped by hash slot: a multi-key command may name the keys of one group. */
export function groupBySlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = keySlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}
