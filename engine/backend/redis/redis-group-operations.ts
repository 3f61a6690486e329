/**
 * Tenant groups on Redis (OxMQ only; keys in docs/redis-keys.md, "Groups"). Settings go through
 * the updateGroup script (registers the group, wakes idle workers); reads through getGroups (one
 * atomic snapshot). The fetch side lives in lua/includes/groups.lua.
 */
import type { RedisClient } from './connection';
import { UnexpectedReplyError, ValidationError } from '../../errors';
import { validateGroupId } from '../../job/options';
import type { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import type { RawJobHash } from '../queue-backend';
import type { GroupDefaults, GroupInfo, GroupOperations } from '../queue-operations';
import { checkInteger, checkRange } from '../operation-validation';
import { runScript } from './run-script';

/** Most ids one listGroupIds page returns, and most groups one getGroups call reads. */
const MAX_GROUPS_PER_CALL = 1_000;

type RateLimit = { max: number; duration: number };

function checkRateLimit(limit: RateLimit): void {
  if (limit === null || typeof limit !== 'object') {
    throw new ValidationError('rate limit must be { max, duration }');
  }
  checkInteger('rate limit max', limit.max, 1);
  checkInteger('rate limit duration', limit.duration, 1);
}

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined || value === '' ? null : Number(value);
}

export class RedisGroupOperations implements GroupOperations {
  constructor(
    readonly client: RedisClient,
    readonly keys: QueueKeys,
  ) {}

  private async update(
    groupId: string,
    change: { set?: (string | number)[]; del?: string[] },
  ): Promise<void> {
    const hash = groupId === '' ? this.keys.meta : this.keys.group(groupId, 'meta');
    await runScript(this.client, 'updateGroup', scriptKeys('updateGroup', this.keys, { hash }), [
      this.keys.base,
      groupId,
      JSON.stringify({ set: change.set ?? [], del: change.del ?? [] }),
    ]);
  }

  async setGroupConcurrency(groupId: string, concurrency: number | undefined): Promise<void> {
    validateGroupId(groupId);
    if (concurrency === undefined) return this.update(groupId, { del: ['concurrency'] });
    checkInteger('group concurrency', concurrency, 1);
    await this.update(groupId, { set: ['concurrency', concurrency] });
  }

  async setGroupRateLimit(groupId: string, limit: RateLimit | undefined): Promise<void> {
    validateGroupId(groupId);
    if (limit === undefined) return this.update(groupId, { del: ['max', 'duration'] });
    checkRateLimit(limit);
    await this.update(groupId, { set: ['max', limit.max, 'duration', limit.duration] });
  }

  async setGroupPaused(groupId: string, paused: boolean): Promise<void> {
    validateGroupId(groupId);
    await this.update(groupId, paused ? { set: ['paused', 1] } : { del: ['paused'] });
  }

  async setGroupDefaults(defaults: GroupDefaults): Promise<void> {
    if (defaults === null || typeof defaults !== 'object' || Array.isArray(defaults)) {
      throw new ValidationError('group defaults must be { concurrency?, rateLimit? }');
    }
    const unknownKeys = Object.keys(defaults).filter(
      (key) => key !== 'concurrency' && key !== 'rateLimit',
    );
    if (unknownKeys.length > 0) {
      throw new ValidationError(`unknown group defaults: ${unknownKeys.join(', ')}`);
    }
    const set: (string | number)[] = [];
    const del: string[] = [];
    if (defaults.concurrency === null) del.push('group.concurrency');
    else if (defaults.concurrency !== undefined) {
      checkInteger('group concurrency', defaults.concurrency, 1);
      set.push('group.concurrency', defaults.concurrency);
    }
    if (defaults.rateLimit === null) del.push('group.max', 'group.duration');
    else if (defaults.rateLimit !== undefined) {
      checkRateLimit(defaults.rateLimit);
      set.push('group.max', defaults.rateLimit.max, 'group.duration', defaults.rateLimit.duration);
    }
    if (set.length === 0 && del.length === 0) return;
    await this.update('', { set, del });
  }

  async getGroupDefaults(): Promise<{ concurrency: number | null; rateLimit: RateLimit | null }> {
    const [concurrency, max, duration] = await this.client.hmget(
      this.keys.meta,
      'group.concurrency',
      'group.max',
      'group.duration',
    );
    return {
      concurrency: numberOrNull(concurrency),
      rateLimit:
        max !== null && duration !== null ? { max: Number(max), duration: Number(duration) } : null,
    };
  }

  async getGroups(groupIds: string[]): Promise<GroupInfo[]> {
    if (!Array.isArray(groupIds)) throw new ValidationError('group ids must be an array');
    if (groupIds.length > MAX_GROUPS_PER_CALL) {
      throw new ValidationError(`at most ${MAX_GROUPS_PER_CALL} groups per call`);
    }
    groupIds.forEach((id) => validateGroupId(id));
    if (groupIds.length === 0) return [];
    const reply = await runScript(this.client, 'getGroups', scriptKeys('getGroups', this.keys), [
      this.keys.base,
      Date.now(),
      ...groupIds,
    ]);
    if (!Array.isArray(reply) || reply.length !== groupIds.length * 8) {
      throw new UnexpectedReplyError(`getGroups replied ${JSON.stringify(reply)}`);
    }
    const groups: GroupInfo[] = [];
    for (let i = 0; i < reply.length; i += 8) {
      const [id, waiting, active, paused, concurrency, max, duration, ttl] = reply.slice(i, i + 8);
      const limitMax = numberOrNull(max);
      const limitDuration = numberOrNull(duration);
      groups.push({
        id: String(id),
        waiting: Number(waiting),
        active: Number(active),
        paused: Number(paused) === 1,
        concurrency: numberOrNull(concurrency),
        rateLimit:
          limitMax !== null && limitDuration !== null
            ? { max: limitMax, duration: limitDuration }
            : null,
        rateLimitTtl: Number(ttl),
      });
    }
    return groups;
  }

  async listGroupIds(cursor: string, count: number): Promise<{ ids: string[]; cursor: string }> {
    if (typeof cursor !== 'string') throw new ValidationError('group cursor must be a string');
    if (cursor !== '') validateGroupId(cursor);
    checkInteger('count', count, 1, MAX_GROUPS_PER_CALL);
    const ids = await this.client.zrangebylex(
      this.keys.groupsKnown,
      cursor === '' ? '-' : `(${cursor}`,
      '+',
      'LIMIT',
      0,
      count,
    );
    return { ids, cursor: ids.length === count ? ids[ids.length - 1]! : '' };
  }

  async getGroupJobs(
    groupId: string,
    start: number,
    end: number,
  ): Promise<{ id: string; hash: RawJobHash }[]> {
    validateGroupId(groupId);
    checkRange(start, end);
    if (end !== -1 && end < start) return [];
    // The line is popped from its tail: the next job to run is the last element.
    const ids = (
      await this.client.lrange(this.keys.group(groupId, 'wait'), -(end + 1), -(start + 1))
    ).reverse();
    if (ids.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.job(id));
    const replies = (await pipeline.exec()) ?? [];
    const jobs: { id: string; hash: RawJobHash }[] = [];
    replies.forEach(([error, hash], i) => {
      if (error) throw error;
      const record = hash as RawJobHash;
      if (Object.keys(record).length > 0) jobs.push({ id: ids[i]!, hash: record });
    });
    return jobs;
  }
}
