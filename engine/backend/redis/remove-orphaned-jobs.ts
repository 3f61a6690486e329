/**
 * Queue.removeOrphanedJobs (bullmq 6.7): a one-off repair that deletes job keys no state
 * structure holds any more. The queue's keys are walked with SCAN (`count` keys per step); each
 * step's candidate ids are checked and deleted by one script call (lua/removeOrphanedJobs-1.lua),
 * so the work per call stays bounded.
 */
import type { RedisClient } from './connection';
import {
  GROUP_KEY_PREFIX,
  GROUP_QUEUE_KEY_NAMES,
  QUEUE_KEY_NAMES,
  type QueueKeys,
} from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import { checkInteger } from '../operation-validation';
import { runScript } from './run-script';

/** Keys of a job besides its hash (docs/redis-keys.md, "Per job"). */
const JOB_SUB_KEYS = [':logs', ':dependencies', ':processed', ':failed', ':unsuccessful', ':lock'];

/** Queue-level keys that are not jobs: bullmq's names, legacy ones, and OxMQ's own. */
const QUEUE_LEVEL = new Set<string>([
  ...QUEUE_KEY_NAMES,
  'priority',
  'delay',
  'limiter:log',
  ...GROUP_QUEUE_KEY_NAMES,
]);
const QUEUE_LEVEL_PREFIXES = ['de:', 'dn:', 'metrics:', GROUP_KEY_PREFIX];

/** The job id a key of the queue belongs to, or undefined for a queue-level key. */
export function jobIdOfQueueKey(rest: string): string | undefined {
  if (rest === '' || QUEUE_LEVEL.has(rest)) return undefined;
  if (QUEUE_LEVEL_PREFIXES.some((prefix) => rest.startsWith(prefix))) return undefined;
  let id = rest;
  const suffix = JOB_SUB_KEYS.find((sub) => rest.endsWith(sub));
  if (suffix) id = rest.slice(0, -suffix.length);
  // A job id has no colon, or exactly two (`repeat:<schedulerId>:<ms>` and custom ids of that
  // shape); anything else is a key of a queue under a longer prefix (`<prefix>:<q>:<other>:...`)
  // or a scheduler's definition (`repeat:<schedulerId>`).
  const colons = id.split(':').length - 1;
  if (id === '' || (colons !== 0 && colons !== 2)) return undefined;
  return id;
}

/** A SCAN MATCH pattern for keys starting with `text`, its glob characters escaped. */
function prefixPattern(text: string): string {
  return `${text.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
}

export async function removeOrphanedJobs(
  client: RedisClient,
  keys: QueueKeys,
  count: number,
  limit: number,
): Promise<number> {
  checkInteger('count', count, 1);
  checkInteger('limit', limit, 0);
  let removed = 0;
  let cursor = '0';
  do {
    const [next, found] = await client.scan(
      cursor,
      'MATCH',
      prefixPattern(keys.base),
      'COUNT',
      count,
    );
    cursor = next;
    const ids = new Set<string>();
    for (const key of found) {
      const id = jobIdOfQueueKey(key.slice(keys.base.length));
      if (id !== undefined) ids.add(id);
    }
    if (ids.size > 0) {
      const budget = limit === 0 ? 0 : limit - removed;
      removed += Number(
        await runScript(client, 'removeOrphanedJobs', scriptKeys('removeOrphanedJobs', keys), [
          budget,
          ...ids,
        ]),
      );
      if (limit > 0 && removed >= limit) break;
    }
  } while (cursor !== '0');
  return removed;
}
