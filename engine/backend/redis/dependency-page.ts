/**
 * Queue.getDependencies: one page of a parent's pending or processed children, each as its full
 * key (plus the parsed return value of a processed one) and its job in bullmq's listing form, as bullmq's
 * method answers. The page is read by one bounded script (lua/getDependencyPage-1.lua).
 */
import type { RedisClient } from './connection';
import { UnexpectedReplyError, ValidationError } from '../../errors';
import { dependencyJobJson, type DependencyJobJson } from '../../job/dependency-json';
import type { QueueKeys } from '../../queue/keys';
import type { DependencyItem, DependencyListing } from '../queue-operations';
import { checkInteger, checkJobId } from '../operation-validation';
import { flatToRecord, runScript } from './run-script';

/** SSCAN / HSCAN COUNT hint per step of the page script. */
const SCAN_STEP = 100;

function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function getDependencyListing(
  client: RedisClient,
  keys: QueueKeys,
  parentId: string,
  type: 'processed' | 'pending',
  start: number,
  end: number,
): Promise<DependencyListing> {
  checkJobId(parentId);
  if (type !== 'processed' && type !== 'pending') {
    throw new ValidationError(
      `getDependencies type must be "processed" or "pending" (got ${type})`,
    );
  }
  checkInteger('start', start, 0);
  checkInteger('end', end, -1);
  const key = `${keys.job(parentId)}:${type === 'processed' ? 'processed' : 'dependencies'}`;
  const reply = await runScript(
    client,
    'getDependencyPage',
    [key],
    [type === 'processed' ? 'hash' : 'set', start, end, SCAN_STEP],
  );
  if (!Array.isArray(reply)) {
    throw new UnexpectedReplyError(`getDependencyPage replied ${String(reply)}`);
  }
  const [total, ...entries] = reply as [number, ...[string, string | null, unknown][]];
  const items: DependencyItem[] = [];
  const jobs: DependencyJobJson[] = [];
  for (const [member, value, flat] of entries) {
    const childKey = String(member);
    items.push(
      typeof value === 'string' ? { id: childKey, v: parseValue(value) } : { id: childKey },
    );
    const hash = flatToRecord(flat);
    if (Object.keys(hash).length > 0) jobs.push(dependencyJobJson(jobIdOfKey(childKey), hash));
  }
  return { items, jobs, total: Number(total) };
}

/** The job id at the end of a full job key; a scheduler job id holds two colons of its own. */
function jobIdOfKey(jobKey: string): string {
  const parts = jobKey.split(':');
  const repeatAt = parts.lastIndexOf('repeat');
  if (repeatAt >= 0 && repeatAt === parts.length - 3) return parts.slice(-3).join(':');
  return parts[parts.length - 1] ?? jobKey;
}
