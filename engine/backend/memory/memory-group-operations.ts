/**
 * GroupOperations in memory: tenant group settings and reads over a memory queue's groups
 * (memory-groups.ts). Every setter validates first, registers the group and wakes idle
 * workers when grouped jobs wait, as the Redis one does (lua/updateGroup-3.lua).
 */
import { ValidationError } from '../../errors';
import { validateGroupId } from '../../job/options';
import type { QueueKeys } from '../../queue/keys';
import { checkInteger, checkRange } from '../operation-validation';
import type { RawJobHash } from '../queue-backend';
import type { GroupDefaults, GroupInfo, GroupOperations } from '../queue-operations';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { indexRange } from './scored-ids';

/** Most ids one page lists, and most groups one getGroups call reads (as on Redis). */
const MAX_GROUPS_PER_CALL = 1_000;

type RateLimit = { max: number; duration: number };

function checkRateLimit(limit: RateLimit): void {
  if (limit === null || typeof limit !== 'object') {
    throw new ValidationError('rate limit must be { max, duration }');
  }
  checkInteger('rate limit max', limit.max, 1);
  checkInteger('rate limit duration', limit.duration, 1);
}

export class MemoryGroupOperations implements GroupOperations {
  private readonly queue: MemoryQueue;

  constructor(store: MemoryStore, keys: QueueKeys) {
    this.queue = store.queue(keys);
  }

  /** Changes a group's own settings ('' : the queue-wide defaults), then wakes idle workers. */
  private update(groupId: string, set: Record<string, string>, del: string[] = []): void {
    const { groups, meta } = this.queue;
    let target = meta;
    if (groupId !== '') {
      groups.register(groupId);
      target = groups.meta.get(groupId) ?? {};
      groups.meta.set(groupId, target);
    }
    for (const field of del) delete target[field];
    Object.assign(target, set);
    if (groups.ring.length > 0) this.queue.signalReady();
  }

  async setGroupConcurrency(groupId: string, concurrency: number | undefined): Promise<void> {
    validateGroupId(groupId);
    if (concurrency === undefined) return this.update(groupId, {}, ['concurrency']);
    checkInteger('group concurrency', concurrency, 1);
    this.update(groupId, { concurrency: String(concurrency) });
  }

  async setGroupRateLimit(groupId: string, limit: RateLimit | undefined): Promise<void> {
    validateGroupId(groupId);
    if (limit === undefined) return this.update(groupId, {}, ['max', 'duration']);
    checkRateLimit(limit);
    this.update(groupId, { max: String(limit.max), duration: String(limit.duration) });
  }

  async setGroupPaused(groupId: string, paused: boolean): Promise<void> {
    validateGroupId(groupId);
    if (paused) this.update(groupId, { paused: '1' });
    else this.update(groupId, {}, ['paused']);
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
    const set: Record<string, string> = {};
    const del: string[] = [];
    if (defaults.concurrency === null) del.push('group.concurrency');
    else if (defaults.concurrency !== undefined) {
      checkInteger('group concurrency', defaults.concurrency, 1);
      set['group.concurrency'] = String(defaults.concurrency);
    }
    if (defaults.rateLimit === null) del.push('group.max', 'group.duration');
    else if (defaults.rateLimit !== undefined) {
      checkRateLimit(defaults.rateLimit);
      set['group.max'] = String(defaults.rateLimit.max);
      set['group.duration'] = String(defaults.rateLimit.duration);
    }
    if (Object.keys(set).length === 0 && del.length === 0) return;
    this.update('', set, del);
  }

  async getGroupDefaults(): Promise<{ concurrency: number | null; rateLimit: RateLimit | null }> {
    const meta = this.queue.meta;
    const concurrency = meta['group.concurrency'];
    const max = meta['group.max'];
    const duration = meta['group.duration'];
    return {
      concurrency: concurrency === undefined ? null : Number(concurrency),
      rateLimit:
        max !== undefined && duration !== undefined
          ? { max: Number(max), duration: Number(duration) }
          : null,
    };
  }

  async getGroups(groupIds: string[]): Promise<GroupInfo[]> {
    if (!Array.isArray(groupIds)) throw new ValidationError('group ids must be an array');
    if (groupIds.length > MAX_GROUPS_PER_CALL) {
      throw new ValidationError(`at most ${MAX_GROUPS_PER_CALL} groups per call`);
    }
    groupIds.forEach((id) => validateGroupId(id));
    const { groups } = this.queue;
    const now = Date.now();
    return groupIds.map((id) => {
      const { paused, concurrency, max, duration } = groups.settings(id);
      const limited = max !== undefined && duration !== undefined;
      return {
        id,
        waiting: groups.line(id).length,
        active: groups.active(id).size,
        paused,
        concurrency: concurrency ?? null,
        rateLimit: limited ? { max: max!, duration: duration! } : null,
        rateLimitTtl: limited ? groups.rateLimitTtl(id, max!, duration!, now) : 0,
      };
    });
  }

  async listGroupIds(cursor: string, count: number): Promise<{ ids: string[]; cursor: string }> {
    if (typeof cursor !== 'string') throw new ValidationError('group cursor must be a string');
    if (cursor !== '') validateGroupId(cursor);
    checkInteger('count', count, 1, MAX_GROUPS_PER_CALL);
    const ids = [...this.queue.groups.known]
      .sort()
      .filter((id) => id > cursor)
      .slice(0, count);
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
    return indexRange(this.queue.groups.line(groupId), start, end).flatMap((id) => {
      const job = this.queue.jobs.get(id);
      return job ? [{ id, hash: { ...job.hash } }] : [];
    });
  }
}
