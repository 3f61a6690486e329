/**
 * Tenant groups for the console's queue page: one page of groups through the engine's
 * getGroups cursor (id order), the queue-wide defaults, and the operator's actions on one group
 * (the engine's pauseGroup / resumeGroup / set and remove concurrency and rate limit, which
 * validate their input and throw ValidationError).
 */
import type { RedisClient } from '../connection';
import type { GroupInfo } from '../backend/queue-operations';
import { OxmqError } from '../errors';
import { validateGroupId } from '../job-options';
import { queueHandle } from './queue-handle';

export const GROUP_LIST_LIMITS = { maxPageSize: 200, defaultPageSize: 50 } as const;

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
  validateGroupId(groupId);
  const queue = queueHandle(client, prefix, name);
  if ((await client.zscore(queue.keys.groupsKnown, groupId)) === null) {
    throw new GroupNotFoundError(`No group ${groupId} in this queue`);
  }
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
