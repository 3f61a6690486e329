/** A job named by its full Redis key, as flows link parents and children (docs/redis-keys.md). */
import { ValidationError } from '../errors';
import { QueueKeys } from '../queue/keys';

/** A job named by its full key `<prefix>:<queueName>:<id>` (docs/redis-keys.md). */
export interface JobRef {
  key: string;
  prefix: string;
  queueName: string;
  id: string;
}

/**
 * Splits a full job key at its last two colons, as bullmq does: queue names hold no colon, ids
 * of flow nodes normally hold none, and prefixes may (`{tag}:bull`). Undefined when malformed.
 */
export function parseJobKey(key: string): JobRef | undefined {
  const last = key.lastIndexOf(':');
  const previous = last > 0 ? key.lastIndexOf(':', last - 1) : -1;
  if (previous <= 0 || last === key.length - 1 || last - previous < 2) return undefined;
  return {
    key,
    prefix: key.slice(0, previous),
    queueName: key.slice(previous + 1, last),
    id: key.slice(last + 1),
  };
}

export function jobRef(prefix: string, queueName: string, id: string): JobRef {
  const keys = new QueueKeys(prefix, queueName); // validates both
  if (typeof id !== 'string' || id.length === 0)
    throw new ValidationError('job id must be a non-empty string');
  return { key: keys.job(id), prefix, queueName, id };
}
