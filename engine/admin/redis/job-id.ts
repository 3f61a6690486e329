/**
 * Whether an id names a job of a queue. A job's hash is `<prefix>:<queue>:<id>`, and an id may
 * contain ':': a job scheduler's jobs are `repeat:<scheduler id>:<millis>` (bullmq's format), and
 * custom ids of that shape are allowed. But the same key could be one of a job's other keys
 * (`1:lock`, `1:logs`, `1:processed`, `1:dependencies`), one of the queue's (`meta`, `events`,
 * `wait`) or a scheduler's record (`repeat:<scheduler id>`), which the engine would read, change
 * or delete as if it were a job. Two checks keep those out. The id's shape: a job id has no ':'
 * or exactly two (the engine refuses other custom ids, and its own are of those forms), and every
 * other key of a job adds one to its id. Then the key itself: bullmq and OxMQ write `name` and
 * `timestamp` into every job hash, which no queue key holds. The admin layer looks before it
 * acts on an id that came from outside, whatever route it came through.
 */
import type { RedisClient } from '../../backend/redis/connection';
import { QueueKeys } from '../../queue/keys';

/** `job`: a job's hash; `missing`: no such key; `not-a-job`: an id no job can have, or a key that is no job. */
export type JobKeyKind = 'job' | 'missing' | 'not-a-job';

/** No ':' or exactly two, as in `repeat:<scheduler id>:<millis>`. */
export function hasJobIdShape(id: string): boolean {
  const colons = id.split(':').length - 1;
  return id.length > 0 && (colons === 0 || colons === 2);
}

export async function jobKeyKind(
  client: RedisClient,
  prefix: string,
  queueName: string,
  id: string,
): Promise<JobKeyKind> {
  if (!hasJobIdShape(id)) return 'not-a-job';
  const key = new QueueKeys(prefix, queueName).base + id;
  // One key: one round trip on a Cluster too. HMGET fails on a key of another type; TYPE says why.
  const replies = (await client.pipeline().type(key).hmget(key, 'name', 'timestamp').exec()) ?? [];
  const type = replies[0]?.[1];
  if (type === 'none') return 'missing';
  if (type !== 'hash') return 'not-a-job';
  const fields = replies[1]?.[1];
  return Array.isArray(fields) && fields.every((value) => typeof value === 'string')
    ? 'job'
    : 'not-a-job';
}
