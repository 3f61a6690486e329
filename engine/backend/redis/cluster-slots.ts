/**
 * The Redis Cluster checks of the Redis storage: on a Cluster connection, a queue whose keys
 * would spread over several hash slots, or a job whose parent lives in another slot, is refused
 * up front instead of failing later with CROSSSLOT. The hash-tag rules themselves are the
 * queue's key layout (engine/queue/hash-tags.ts).
 */
import { isCluster, isRedisClient } from './connection';
import { ValidationError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { queueHashTag, queueKeyHashTag } from '../../queue/hash-tags';

/**
 * On a Cluster connection, refuses a job whose parent lives in a queue of another slot: the
 * scripts that add and finish it update the parent in the same call (docs/scaling.md).
 */
export function assertClusterSafeParent(
  connection: unknown,
  keys: QueueKeys,
  parentQueueKey: string | undefined,
): void {
  if (parentQueueKey === undefined || !isClusterConnection(connection)) return;
  if (queueKeyHashTag(parentQueueKey) === queueHashTag(keys)) return;
  throw new ValidationError(
    `On Redis Cluster a job and its parent must share one hash tag: queue "${keys.queueKey}" and ` +
      `its parent's queue "${parentQueueKey}" do not (use one tagged prefix for both, e.g. ` +
      `FlowProducer.forCluster(tag) and the same prefix for the queues' workers)`,
  );
}

/** True when `connection` (a connection option) is an ioredis Cluster. */
function isClusterConnection(connection: unknown): boolean {
  return isRedisClient(connection) && isCluster(connection);
}

/**
 * On a Cluster connection, refuses (at construction, before any connection is opened, not at
 * the first CROSSSLOT) a queue whose keys would spread over several slots.
 */
export function assertClusterSafeQueue(connection: unknown, keys: QueueKeys): void {
  if (!isClusterConnection(connection) || queueHashTag(keys) !== undefined) return;
  throw new ValidationError(
    `Queue "${keys.queueName}" (prefix "${keys.prefix}") cannot run on Redis Cluster: its keys would ` +
      `spread over several hash slots. Put a hash tag in the prefix or the queue name ` +
      `(e.g. prefix "{${keys.prefix}}" or queue "{${keys.queueName}}"), or set clusterHashTags: true`,
  );
}
