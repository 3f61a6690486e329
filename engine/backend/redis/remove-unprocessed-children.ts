/**
 * job.removeUnprocessedChildren (bullmq 6.7): removes every pending child of a parent, each with
 * its own descendants, except children a worker holds (locked) and children that failed (their
 * failure is the parent's record). Each removal detaches the child from the parent, so a parent
 * waiting for children is released to wait once none is pending, as bullmq releases it.
 *
 * The pending set is read in bounded SSCAN pages and each child is removed by its own removeJob
 * script call, so no single call blocks Redis for long however many children there are.
 */
import type { RedisClient } from './connection';
import { DEFAULTS } from '../../defaults';
import { QueueKeys } from '../../queue/keys';
import { checkJobId } from '../operation-validation';
import { removeJob } from './queue-cleanup';

/**
 * Where a child lives, from its full key `<prefix>:<queue>:<id>`. Queue names have no colon but
 * prefixes and ids may: a child under the parent's prefix (every flow's default) is split after
 * that prefix, so an id like `a:b:c` stays whole; any other key on its last two colons.
 */
function childLocation(
  childKey: string,
  parentPrefix: string,
): { keys: QueueKeys; jobId: string } | undefined {
  let prefix: string;
  let queueName: string;
  let jobId: string;
  if (childKey.startsWith(`${parentPrefix}:`)) {
    const rest = childKey.slice(parentPrefix.length + 1);
    const at = rest.indexOf(':');
    if (at <= 0) return undefined;
    prefix = parentPrefix;
    queueName = rest.slice(0, at);
    jobId = rest.slice(at + 1);
  } else {
    const idAt = childKey.lastIndexOf(':');
    const queueAt = idAt > 0 ? childKey.lastIndexOf(':', idAt - 1) : -1;
    if (queueAt <= 0) return undefined;
    prefix = childKey.slice(0, queueAt);
    queueName = childKey.slice(queueAt + 1, idAt);
    jobId = childKey.slice(idAt + 1);
  }
  if (queueName === '' || jobId === '') return undefined;
  return { keys: new QueueKeys(prefix, queueName), jobId };
}

/** Returns how many children were removed. */
export async function removeUnprocessedChildren(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<number> {
  checkJobId(jobId);
  const dependencies = `${keys.job(jobId)}:dependencies`;
  let removed = 0;
  // Children left in place (locked, failed, unreadable keys) are remembered so the loop ends.
  const kept = new Set<string>();
  for (;;) {
    const page = await pendingPage(client, dependencies, kept);
    if (page.length === 0) return removed;
    for (const childKey of page) {
      const child = childLocation(childKey, keys.prefix);
      if (!child || (await isLockedOrFailed(client, child.keys, child.jobId))) {
        kept.add(childKey);
        continue;
      }
      // 0: a worker took the child (or one of its descendants) meanwhile; it stays.
      if ((await removeJob(client, child.keys, child.jobId, true)) === 1) removed += 1;
      else kept.add(childKey);
    }
  }
}

/** Up to one chunk of pending children not already kept, scanning the whole set at most once. */
async function pendingPage(client: RedisClient, key: string, kept: Set<string>): Promise<string[]> {
  const page: string[] = [];
  let cursor = '0';
  do {
    const [next, members] = await client.sscan(key, cursor, 'COUNT', DEFAULTS.chunkSize);
    cursor = next;
    for (const member of members) {
      if (!kept.has(member) && page.length < DEFAULTS.chunkSize) page.push(member);
    }
  } while (cursor !== '0' && page.length < DEFAULTS.chunkSize);
  return page;
}

async function isLockedOrFailed(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<boolean> {
  // A first look only (removeJob checks the lock again as it removes), so a pipeline will do.
  const [[lockError, locked] = [], [failedError, failedScore] = []] =
    (await client.pipeline().exists(keys.jobLock(jobId)).zscore(keys.failed, jobId).exec()) ?? [];
  if (lockError) throw lockError;
  if (failedError) throw failedError;
  return Number(locked) === 1 || failedScore !== null;
}
