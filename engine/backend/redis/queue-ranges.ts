/**
 * bullmq's plain state reads that need no script: id ranges (Queue.getRanges), counts per
 * priority and the delayed count before a cutoff. Each reads the keys bullmq reads (docs/redis-keys.md), so the answers agree on data either library wrote.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './connection';
import { DEFAULTS } from '../../defaults';
import type { QueueKeys } from '../../queue/keys';
import type { JobState } from '../queue-operations';
import { checkIndexRange, checkInteger, checkJobStates } from '../operation-validation';
import { stateKeyName } from './queue-reads';
import { UnexpectedReplyError } from '../../errors';
import { registerScripts } from '../../scripts/loader';
import { parseGroupedCounts, queueGroupedCounts } from './grouped-counts';
import { runScript } from './run-script';

/** A prioritized job's score is priority * 2^32 + a counter (docs/redis-keys.md). */
const PRIORITY_SPAN = 2 ** 32;

/** A delayed job's score is dueTs * 4096 + a sequence (docs/redis-keys.md). */
const DELAYED_SCORE_FACTOR = 4096;

async function execAll(pipeline: ChainableCommander): Promise<unknown[]> {
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

/**
 * Ids in [start, end] of each state, states concatenated in the given order, each id once, in
 * one atomic read (a job moving between two states is listed once) that also runs at maxmemory.
 * Lists hold the newest job at the head, so an ascending read takes the mirrored window from the
 * tail; negative indexes count from the end as in Redis. Tenant groups' waiting and delayed jobs
 * are part of their state (lua/getJobsInStates-1.lua).
 */
export async function getRanges(
  client: RedisClient,
  keys: QueueKeys,
  types: JobState[],
  start: number,
  end: number,
  asc: boolean,
): Promise<string[]> {
  checkJobStates(types);
  checkIndexRange(start, end);
  const states = [...new Set(types.map(stateKeyName))];
  if (states.length === 0) return [];
  const reply = await runScript(
    client,
    'getJobsInStates',
    [keys.base],
    [start, end, asc ? '1' : '0', 0, 'ids', ...states],
  );
  if (!Array.isArray(reply))
    throw new UnexpectedReplyError(`getJobsInStates replied ${String(reply)}`);
  return reply.map(String);
}

/**
 * Waiting jobs per priority, keyed by the priority as given: 0 counts the wait list, p > 0 the
 * prioritized jobs whose score falls in p's band.
 */
export async function getCountsPerPriority(
  client: RedisClient,
  keys: QueueKeys,
  priorities: number[],
): Promise<Record<string, number>> {
  if (!Array.isArray(priorities)) {
    throw new TypeError('getCountsPerPriority expects an array of priorities');
  }
  for (const priority of priorities) checkInteger('priority', priority, 0, DEFAULTS.maxPriority);
  const unique = [...new Set(priorities)];
  if (unique.length === 0) return {};
  // Counts of a moment each, as getJobCounts: a pipeline (no MULTI, which Redis refuses at maxmemory).
  // Grouped jobs have no priority: those ready to run count with the wait list's.
  const withGroups = unique.includes(0);
  if (withGroups) registerScripts(client);
  const pipeline = client.pipeline();
  for (const priority of unique) {
    if (priority === 0) pipeline.llen(keys.wait);
    else {
      const low = priority * PRIORITY_SPAN;
      pipeline.zcount(keys.prioritized, low, low + PRIORITY_SPAN - 1);
    }
  }
  if (withGroups) queueGroupedCounts(pipeline, keys);
  const replies = await execAll(pipeline);
  const grouped = withGroups ? parseGroupedCounts(replies[unique.length]) : undefined;
  const counts: Record<string, number> = {};
  unique.forEach((priority, i) => {
    counts[String(priority)] = Number(replies[i]) + (priority === 0 ? grouped!.waiting : 0);
  });
  return counts;
}

/**
 * Delayed jobs due strictly before `timestamp` (ms), or all of them without one; delayed jobs of
 * tenant groups (`Q group-delayed`, scored alike) included.
 */
export async function getDelayedCount(
  client: RedisClient,
  keys: QueueKeys,
  timestamp?: number,
): Promise<number> {
  const sets = [keys.delayed, keys.groupDelayed];
  const pipeline = client.pipeline();
  if (timestamp === undefined) {
    for (const key of sets) pipeline.zcard(key);
  } else {
    checkInteger('timestamp', timestamp, 0);
    for (const key of sets) pipeline.zcount(key, '-inf', timestamp * DELAYED_SCORE_FACTOR - 1);
  }
  const replies = await execAll(pipeline);
  return replies.reduce<number>((sum, n) => sum + Number(n), 0);
}
