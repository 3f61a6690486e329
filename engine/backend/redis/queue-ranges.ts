/**
 * bullmq's plain state reads that need no script: id ranges (Queue.getRanges), counts per
 * priority and the delayed count before a cutoff. Each reads the keys bullmq reads (docs/redis-keys.md), so the answers agree on data either library wrote.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '../../connection';
import { DEFAULTS } from '../../defaults';
import type { QueueKeys } from '../../keys';
import type { JobState } from '../queue-operations';
import { checkIndexRange, checkInteger, checkJobStates } from './operation-validation';
import { stateKeyName } from './queue-reads';
import { readAllTogether, type ReadCommand } from './read-together';

const LIST_STATES = new Set(['wait', 'paused', 'active']);

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
 * Ids in [start, end] of each state, states concatenated in the given order, each id once.
 * Lists hold the newest job at the head, so an ascending read takes the mirrored window from the
 * tail and reverses it; negative indexes pass through to Redis as bullmq passes them.
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
  // One atomic read (a job moving between two states is listed once), also at maxmemory.
  const reads = states.map((state): ReadCommand => {
    const key = keys.base + state;
    if (LIST_STATES.has(state)) {
      return asc ? ['lrange', key, -(end + 1), -(start + 1)] : ['lrange', key, start, end];
    }
    return asc ? ['zrange', key, start, end] : ['zrevrange', key, start, end];
  });
  const replies = await readAllTogether(client, keys.base, reads);
  const ids: string[] = [];
  states.forEach((state, i) => {
    const range = ((replies[i] as string[] | null) ?? []).map(String);
    if (asc && LIST_STATES.has(state)) range.reverse();
    // bullmq 4/early 5 left "0:<delay>" markers in wait; they are not jobs.
    ids.push(...range.filter((id) => !id.startsWith('0:')));
  });
  return [...new Set(ids)];
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
  const pipeline = client.pipeline();
  for (const priority of unique) {
    if (priority === 0) pipeline.llen(keys.wait);
    else {
      const low = priority * PRIORITY_SPAN;
      pipeline.zcount(keys.prioritized, low, low + PRIORITY_SPAN - 1);
    }
  }
  const replies = await execAll(pipeline);
  const counts: Record<string, number> = {};
  unique.forEach((priority, i) => {
    counts[String(priority)] = Number(replies[i]);
  });
  return counts;
}

/** Delayed jobs due strictly before `timestamp` (ms), or all of them without one. */
export async function getDelayedCount(
  client: RedisClient,
  keys: QueueKeys,
  timestamp?: number,
): Promise<number> {
  if (timestamp === undefined) return client.zcard(keys.delayed);
  checkInteger('timestamp', timestamp, 0);
  return client.zcount(keys.delayed, '-inf', timestamp * DELAYED_SCORE_FACTOR - 1);
}
