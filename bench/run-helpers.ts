/**
 * What every benchmark child (bench/child.ts, bench/cluster-child.ts) does around its measured
 * window: wait for the last completion, pre-fill a queue, and read a queue's final state for the
 * exact-delivery check.
 */
import type { Redis } from 'ioredis';
import type { BenchJobOpts, BenchQueue } from './libs';
import { redisCounters, type RedisCounters } from './stats';

export const PREFIX = 'bull';
const STALL_TIMEOUT_MS = 120_000;
/**
 * Job ids the harness meets: a queue's counter (add, addBulk) or the UUID both libraries give a
 * flow node without `opts.jobId`.
 */
const JOB_ID = '\\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** `INFO cpu` + `INFO commandstats` of one server, as counters. */
export async function counters(redis: Redis): Promise<RedisCounters> {
  const text = (await redis.info('cpu')) + '\n' + (await redis.info('commandstats'));
  return redisCounters(text);
}

/**
 * CPU time (user + system) this process spends from the call on, as a function giving µs per
 * job of the window: what the library costs the producing or working process itself.
 */
export function processCpuSince(): (jobs: number) => number | null {
  const start = process.cpuUsage();
  return (jobs) => {
    const spent = process.cpuUsage(start);
    return jobs > 0 ? Math.round(((spent.user + spent.system) / jobs) * 10) / 10 : null;
  };
}

/** Resolves when `target()` holds, checked on every `poke()`; rejects if nothing moves. */
export function completion(target: () => boolean): { poke: () => void; done: Promise<number> } {
  let resolveDone!: (at: number) => void;
  let rejectDone!: (error: Error) => void;
  const done = new Promise<number>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  let last = Date.now();
  const guard = setInterval(() => {
    if (Date.now() - last > STALL_TIMEOUT_MS) {
      clearInterval(guard);
      rejectDone(new Error(`no progress for ${STALL_TIMEOUT_MS} ms`));
    }
  }, 1_000);
  const poke = () => {
    last = Date.now();
    if (target()) {
      clearInterval(guard);
      resolveDone(performance.now());
    }
  };
  return { poke, done };
}

export async function prefill(
  queue: BenchQueue,
  jobs: number,
  opts: BenchJobOpts,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < jobs; start += 1_000) {
    const chunk = [];
    for (let i = start; i < Math.min(jobs, start + 1_000); i++) {
      chunk.push({ name: 'bench', data: { i }, opts });
    }
    ids.push(...(await queue.addBulk(chunk)));
  }
  return ids;
}

/** Final state of the queue, for the exact-delivery check. */
export async function queueState(redis: Redis, queue: string) {
  const base = `${PREFIX}:${queue}`;
  const [wait, active, completed, failed, delayed, prioritized, waitingChildren] =
    await Promise.all([
      redis.llen(`${base}:wait`),
      redis.llen(`${base}:active`),
      redis.zcard(`${base}:completed`),
      redis.zcard(`${base}:failed`),
      redis.zcard(`${base}:delayed`),
      redis.zcard(`${base}:prioritized`),
      redis.zcard(`${base}:waiting-children`),
    ]);
  const jobHashes: string[] = [];
  let leftoverLocks = 0;
  let cursor = '0';
  const jobKey = new RegExp(`^${base}:(${JOB_ID})$`);
  const lockKey = new RegExp(`^${base}:(?:${JOB_ID}):lock$`);
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${base}:*`, 'COUNT', 1_000);
    cursor = next;
    for (const key of keys) {
      const match = jobKey.exec(key);
      if (match) jobHashes.push(match[1]!);
      else if (lockKey.test(key)) leftoverLocks++;
    }
  } while (cursor !== '0');
  return {
    counts: { wait, active, completed, failed, delayed, prioritized, waitingChildren },
    jobHashes,
    leftoverLocks,
  };
}

export const NONE = {
  wait: 0,
  active: 0,
  completed: 0,
  failed: 0,
  delayed: 0,
  prioritized: 0,
  waitingChildren: 0,
};
