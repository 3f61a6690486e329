/**
 * Redis Cluster puts a key in a hash slot by its hash tag: the text between the first `{` and
 * the first `}` after it, when that text is not empty; otherwise by the whole key. A script or
 * transaction may only touch keys of one slot. So a queue works on a Cluster when every one of
 * its keys (`<prefix>:<name>:<suffix>`, docs/redis-keys.md) carries the same tag, which holds
 * exactly when the tag is closed inside `<prefix>:<name>:`: a job id or group id can then no
 * longer change it. docs/scaling.md explains the choices (a tag per queue, or one per prefix for
 * flows that span queues).
 */
import { QueueKeys } from './keys';

/** The hash tag Redis Cluster uses for `key`, or undefined when the whole key is hashed. */
function hashTagOf(key: string): string | undefined {
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
 * The name a queue gets with `clusterHashTags`: wrapped in braces (`email` → `{email}`, keys
 * `bull:{email}:wait`...), unless its keys already share a tag from the prefix or the name.
 */
export function hashTaggedName(prefix: string, name: string): string {
  return queueHashTag(new QueueKeys(prefix, name)) === undefined ? `{${name}}` : name;
}
