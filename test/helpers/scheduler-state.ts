/**
 * Job scheduler state as it sits in Redis (docs/redis-keys.md), for the scheduler suites: the `repeat`
 * zset, the `repeat:<id>` hash, and the iteration jobs `repeat:<id>:<millis>`.
 */
import type { Redis } from 'ioredis';
import { queueKey, queueKeys } from './redis-state';

/** A run a processor saw: the job id, its scheduler, when it started (ms). */
export interface SeenRun {
  id: string;
  rjk?: string;
  startedAt: number;
}

/** The millis in `repeat:<schedulerId>:<millis>`. */
export function iterationMillis(jobId: string): number {
  const millis = Number(jobId.slice(jobId.lastIndexOf(':') + 1));
  if (!Number.isInteger(millis)) throw new Error(`not a scheduler iteration id: ${jobId}`);
  return millis;
}

/** Millis of the runs of one scheduler, in the order they started. */
export function runMillis(runs: SeenRun[], schedulerId: string): number[] {
  return runs.filter((run) => run.rjk === schedulerId).map((run) => iterationMillis(run.id));
}

/** Differences between consecutive values. */
export function gaps(values: number[]): number[] {
  return values.slice(1).map((value, i) => value - values[i]!);
}

export async function schedulerScore(
  redis: Redis,
  queueName: string,
  schedulerId: string,
): Promise<number | null> {
  const score = await redis.zscore(queueKey(queueName, 'repeat'), schedulerId);
  return score === null ? null : Number(score);
}

export function schedulerHash(
  redis: Redis,
  queueName: string,
  schedulerId: string,
): Promise<Record<string, string>> {
  return redis.hgetall(queueKey(queueName, `repeat:${schedulerId}`));
}

/** Ids of every iteration job of the scheduler that has a hash, sorted by millis. */
export async function iterationIds(
  redis: Redis,
  queueName: string,
  schedulerId: string,
): Promise<string[]> {
  const prefix = queueKey(queueName, `repeat:${schedulerId}:`);
  return (await queueKeys(redis, queueName))
    .filter((key) => key.startsWith(prefix) && /^\d+$/.test(key.slice(prefix.length)))
    .map((key) => key.slice(queueKey(queueName).length))
    .sort((a, b) => iterationMillis(a) - iterationMillis(b));
}

/** The job hash with `opts` parsed, for comparisons that ignore key order and `\/` escapes. */
export async function jobHashWithOpts(
  redis: Redis,
  queueName: string,
  jobId: string,
): Promise<{ hash: Record<string, string>; opts: Record<string, unknown> }> {
  const hash = await redis.hgetall(queueKey(queueName, jobId));
  return { hash, opts: JSON.parse(hash.opts ?? '{}') as Record<string, unknown> };
}

/** Where a job id sits: wait, delayed, prioritized, active, completed, failed, or none. */
export async function placeOf(redis: Redis, queueName: string, jobId: string): Promise<string> {
  for (const state of ['delayed', 'prioritized', 'completed', 'failed'] as const) {
    if ((await redis.zscore(queueKey(queueName, state), jobId)) !== null) return state;
  }
  for (const state of ['wait', 'active'] as const) {
    if ((await redis.lpos(queueKey(queueName, state), jobId)) !== null) return state;
  }
  return 'none';
}
