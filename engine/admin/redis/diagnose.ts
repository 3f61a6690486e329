/**
 * "Why isn't this queue moving?": the reasons, in the order an operator should
 * look at them, computed from a handful of bounded reads (counts, meta, limiter TTL, workers,
 * the one next-due delayed job, and the first tenant groups with ready jobs).
 */
import type { RedisClient } from '../../backend/redis/connection';
import type { GroupInfo } from '../../backend/queue-operations';
import type { Queue } from '../../queue/queue';
import { queueHandle } from '../queue-handle';
import { rateLimitHoldMs } from './rate-limit-hold';

/** Groups with ready jobs looked at; beyond this the diagnosis does not judge the groups. */
const GROUPS_JUDGED = 20;

export type DiagnosisCode =
  | 'paused'
  | 'no-workers'
  | 'rate-limited'
  | 'concurrency-full'
  | 'only-delayed'
  | 'only-waiting-children'
  | 'groups-held'
  | 'empty'
  | 'moving';

export interface DiagnosisReason {
  code: DiagnosisCode;
  /** One sentence for the panel. */
  message: string;
  /** rate-limited: ms left in the limiter's window. */
  ttlMs?: number;
  /** only-delayed: when the next delayed job is due (ms since epoch). */
  nextDueAt?: number;
  /** concurrency-full: the limit and the jobs active. */
  limit?: number;
  active?: number;
}

export interface QueueDiagnosis {
  /** True when nothing holds the queue back (it may still be empty). */
  healthy: boolean;
  reasons: DiagnosisReason[];
  checkedAt: number;
}

export async function diagnoseQueue(
  client: RedisClient,
  prefix: string,
  name: string,
): Promise<QueueDiagnosis> {
  const queue = queueHandle(client, prefix, name);
  const [counts, meta, ttl, workerCount, nextDelayed, plainWaiting, groupsHeld] = await Promise.all(
    [
      queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'waiting-children'),
      queue.getMeta(),
      rateLimitHoldMs(client, queue),
      queue.getWorkersCount(),
      queue.getJobs(['delayed'], 0, 0, true),
      client.llen(queue.keys.wait),
      heldGroups(client, queue),
    ],
  );
  const ready = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
  const active = counts.active ?? 0;
  const delayed = counts.delayed ?? 0;
  const waitingChildren = counts['waiting-children'] ?? 0;
  const reasons: DiagnosisReason[] = [];

  if (meta.paused) {
    reasons.push({ code: 'paused', message: 'The queue is paused: workers take no new jobs.' });
  }
  if (workerCount === 0 && (ready > 0 || delayed > 0)) {
    reasons.push({ code: 'no-workers', message: 'No worker is connected to this queue.' });
  }
  if (ttl > 0) {
    reasons.push({
      code: 'rate-limited',
      message: `The rate limiter holds job starts back for ${ttl} ms more.`,
      ttlMs: ttl,
    });
  }
  const limit = meta.concurrency === undefined ? null : Number(meta.concurrency);
  if (limit !== null && Number.isFinite(limit) && active >= limit && ready > 0) {
    reasons.push({
      code: 'concurrency-full',
      message: `Global concurrency is full: ${active} active of ${limit} allowed.`,
      limit,
      active,
    });
  }
  // Every ready job is in a tenant group, and no such group can start one now.
  const groupedReady = (counts.waiting ?? 0) - plainWaiting;
  if (groupsHeld && groupedReady > 0 && plainWaiting + (counts.prioritized ?? 0) === 0) {
    reasons.push({
      code: 'groups-held',
      message:
        groupedReady === 1
          ? `The one waiting job is in a tenant group that cannot start it now: ${groupsHeld}.`
          : `All ${groupedReady} waiting jobs are in tenant groups that cannot start one now: ${groupsHeld}.`,
    });
  }
  if (ready === 0 && active === 0 && delayed > 0) {
    const next = nextDelayed[0];
    const nextDueAt = next ? next.timestamp + next.delay : undefined;
    reasons.push({
      code: 'only-delayed',
      message:
        nextDueAt === undefined
          ? `Only delayed jobs (${delayed}) are left.`
          : `Only delayed jobs (${delayed}) are left; the next is due ${new Date(nextDueAt).toISOString()}.`,
      nextDueAt,
    });
  }
  if (ready === 0 && active === 0 && delayed === 0 && waitingChildren > 0) {
    reasons.push({
      code: 'only-waiting-children',
      message: `Only parents waiting for their children (${waitingChildren}) are left.`,
    });
  }
  const blocked = reasons.length > 0;
  if (!blocked) {
    reasons.push(
      ready + active === 0
        ? { code: 'empty', message: 'Nothing to do: no waiting or active jobs.' }
        : { code: 'moving', message: 'Nothing holds the queue back.' },
    );
  }
  return { healthy: !blocked, reasons, checkedAt: Date.now() };
}

function whyHeld(group: GroupInfo): string | null {
  if (group.paused) return `${group.id} is paused`;
  if (group.concurrency !== null && group.active >= group.concurrency) {
    return `${group.id} runs ${group.active} of ${group.concurrency} allowed`;
  }
  if (group.rateLimitTtl > 0) return `${group.id} is rate limited for ${group.rateLimitTtl} ms`;
  return null;
}

/**
 * Why each group with ready jobs cannot start one, joined for a sentence; null when one of them
 * can, or when there are too many groups to look at each.
 */
async function heldGroups(client: RedisClient, queue: Queue): Promise<string | null> {
  const ring = await client.lrange(queue.keys.groupsRing, 0, GROUPS_JUDGED);
  const ids = [...new Set(ring)];
  if (ids.length === 0 || ids.length > GROUPS_JUDGED) return null;
  const groups = await Promise.all(ids.sort().map((id) => queue.getGroup(id)));
  const reasons = groups.map(whyHeld);
  return reasons.every((reason) => reason !== null) ? reasons.join('; ') : null;
}
