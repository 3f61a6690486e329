/**
 * Tenant groups for the console's queue page: one page of groups through the engine's
 * getGroups cursor (id order), the queue-wide defaults, and the operator's actions on one group
 * (the engine's pauseGroup / resumeGroup / set and remove concurrency and rate limit, which
 * validate their input and throw ValidationError).
 */
import type { RedisClient } from '../../backend/redis/connection';
import type { GroupInfo } from '../../backend/queue-operations';
import { OxmqError } from '../../errors';
import { validateGroupId } from '../../job/options';
import { queueHandle } from '../queue-handle';
import { toJobRow, type JobRow } from '../jobs';

export const GROUP_LIST_LIMITS = { maxPageSize: 200, defaultPageSize: 50 } as const;

/** A group's job listing: a page of its line, and at most this many of its active jobs. */
const GROUP_JOB_LIMITS = { maxPageSize: 100, defaultPageSize: 20, maxActive: 100 } as const;

export interface GroupJobs {
  groupId: string;
  /** A page of the group's line, next to run first. */
  waiting: JobRow[];
  /** Jobs in the group's line. */
  waitingTotal: number;
  /** The group's running jobs (at most GROUP_JOB_LIMITS.maxActive), oldest id first. */
  active: JobRow[];
  activeTotal: number;
  page: number;
  pageSize: number;
}

export interface GroupPage {
  groups: GroupInfo[];
  /** Pass back for the next page; '' after the last one. */
  cursor: string;
  defaults: {
    concurrency: number | null;
    rateLimit: { max: number; duration: number } | null;
  };
}

export type GroupAction =
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'concurrency'; concurrency: number | null }
  | { kind: 'rate-limit'; rateLimit: { max: number; duration: number } | null };

/** An action on a group the queue has never used nor configured. */
export class GroupNotFoundError extends OxmqError {
  readonly code = 'GROUP_NOT_FOUND';
}

export async function listGroups(
  client: RedisClient,
  prefix: string,
  name: string,
  opts: { cursor: string; count: number },
): Promise<GroupPage> {
  const queue = queueHandle(client, prefix, name);
  const count = Math.max(1, Math.min(opts.count, GROUP_LIST_LIMITS.maxPageSize));
  const [page, defaults] = await Promise.all([
    queue.getGroups({ cursor: opts.cursor, count }),
    queue.getGroupDefaults(),
  ]);
  return { groups: page.groups, cursor: page.cursor, defaults };
}

async function requireKnownGroup(client: RedisClient, knownKey: string, groupId: string) {
  validateGroupId(groupId);
  if ((await client.zscore(knownKey, groupId)) === null) {
    throw new GroupNotFoundError(`No group ${groupId} in this queue`);
  }
}

/**
 * The jobs of one known group: a page of its line (next to run first) and its running jobs.
 * Its delayed jobs are not indexed by group (one `Q group-delayed` holds every group's): they
 * are in the queue's delayed listing.
 */
export async function listGroupJobs(
  client: RedisClient,
  prefix: string,
  name: string,
  groupId: string,
  opts: { page: number; pageSize: number },
): Promise<GroupJobs> {
  const queue = queueHandle(client, prefix, name);
  await requireKnownGroup(client, queue.keys.groupsKnown, groupId);
  const pageSize = Math.max(1, Math.min(opts.pageSize, GROUP_JOB_LIMITS.maxPageSize));
  const page = Math.max(1, opts.page);
  const start = (page - 1) * pageSize;
  const activeKey = queue.keys.group(groupId, 'active');
  const [waiting, waitingTotal, activeIds, activeTotal] = await Promise.all([
    queue.getGroupJobs(groupId, start, start + pageSize - 1),
    client.llen(queue.keys.group(groupId, 'wait')),
    client.sscan(activeKey, '0', 'COUNT', GROUP_JOB_LIMITS.maxActive),
    client.scard(activeKey),
  ]);
  const ids = activeIds[1]
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .slice(0, GROUP_JOB_LIMITS.maxActive);
  const active = (await Promise.all(ids.map((id) => queue.getJob(id)))).filter(
    (job) => job !== undefined,
  );
  return {
    groupId,
    waiting: waiting.map(toJobRow),
    waitingTotal,
    active: active.map(toJobRow),
    activeTotal,
    page,
    pageSize,
  };
}

/**
 * Applies one action to a known group and answers its state after it. Unknown groups are
 * refused: the engine would register any new id in `Q groups:known`, and the console acts only
 * on groups it listed.
 */
export async function actOnGroup(
  client: RedisClient,
  prefix: string,
  name: string,
  groupId: string,
  action: GroupAction,
): Promise<GroupInfo> {
  const queue = queueHandle(client, prefix, name);
  await requireKnownGroup(client, queue.keys.groupsKnown, groupId);
  switch (action.kind) {
    case 'pause':
      await queue.pauseGroup(groupId);
      break;
    case 'resume':
      await queue.resumeGroup(groupId);
      break;
    case 'concurrency':
      if (action.concurrency === null) await queue.removeGroupConcurrency(groupId);
      else await queue.setGroupConcurrency(groupId, action.concurrency);
      break;
    case 'rate-limit':
      if (action.rateLimit === null) await queue.removeGroupRateLimit(groupId);
      else await queue.setGroupRateLimit(groupId, action.rateLimit.max, action.rateLimit.duration);
      break;
  }
  return queue.getGroup(groupId);
}
