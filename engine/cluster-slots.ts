/**
 * Redis Cluster puts a key in a hash slot by its hash tag: the text between the first `{` and
 * the first `}` after it, when that text is not empty; otherwise by the whole key. A script or
 * transaction may only touch keys of one slot. So a queue works on a Cluster when every one of
 * its keys (`<prefix>:<name>:<suffix>`, docs/redis-keys.md) carries the same tag, which holds
 * exactly when the tag is closed inside `<prefix>:<name>:`: a job id or group id can then no
 * longer change it. docs/scaling.md explains the choices (a tag per queue, or one per prefix for
 * flows that span queues).
 */
import { isCluster, isRedisClient } from './connection';
import { ValidationError } from './errors';
import { QueueKeys } from './keys';

/** The hash tag Redis Cluster uses for `key`, or undefined when the whole key is hashed. */
export function hashTagOf(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  if (close === -1 || close === open + 1) return undefined;
  return key.slice(open + 1, close);
}

/** The tag every key of the queue shares, or undefined when its keys may land in several slots. */
export function queueHashTag(keys: QueueKeys): string | undefined {
  return queueKeyHashTag(keys.queueKey);
}

/** queueHashTag for a queue named by `<prefix>:<name>` (as a child's parent link names it). */
export function queueKeyHashTag(queueKey: string): string | undefined {
  const base = `${queueKey}:`;
  const open = base.indexOf('{');
  if (open === -1) return undefined;
  // A `{` left open in the base would be closed by whatever follows it in each key.
  if (base.indexOf('}', open + 1) === -1) return undefined;
  return hashTagOf(base);
}

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

/**
 * The name a queue gets with `clusterHashTags`: wrapped in braces (`email` → `{email}`, keys
 * `bull:{email}:wait`...), unless its keys already share a tag from the prefix or the name.
 */
export function hashTaggedName(prefix: string, name: string): string {
  return queueHashTag(new QueueKeys(prefix, name)) === undefined ? `{${name}}` : name;
}

/** True when `connection` (a connection option) is an ioredis Cluster. */
export function isClusterConnection(connection: unknown): boolean {
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
