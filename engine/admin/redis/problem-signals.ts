/**
 * Two signs of trouble the overview reads beside its counts, each in a bounded read:
 *
 * - Recent stalls: bullmq's and OxMQ's stalled checkers both XADD `event=stalled` to the queue's
 *   events stream when they move a job whose lock expired back to wait. Stream ids start with
 *   their ms timestamp, so one XREVRANGE from `+` down to the window's start, with a COUNT cap,
 *   reads only recent entries (and on a busy queue only the newest `eventsScanned` of them).
 * - Missing OxMQ workers: the heartbeat index (docs/redis-keys.md) scores each worker by its last
 *   beat and keeps a worker that stopped beating without closing for HEARTBEAT_INDEX_KEEP_MS. A
 *   worker is missing when its entry is in that window and its record has expired (it stopped
 *   for three intervals), or its last beat is older than two of its intervals. One
 *   ZRANGEBYSCORE (oldest first, capped) and one pipeline of HGETs of the candidates' interval.
 */
import type { RedisClient } from '../../backend/redis/connection';
import type { QueueKeys } from '../../queue/keys';
import { HEARTBEAT_INDEX_KEEP_MS } from '../../worker/heartbeat';
import { workerRecordKey, workersIndexKey } from '../../worker/heartbeat-keys';

export const PROBLEM_SIGNAL_LIMITS = {
  /** Stalls this recent make a `stalled-recently` problem. */
  stalledWindowMinutes: 15,
  /** Newest events of the window examined for stalls. */
  eventsScanned: 200,
  /** Oldest heartbeat index entries of the window examined. */
  heartbeatCandidates: 20,
  /** A worker whose last beat is older than this many of its intervals is late. */
  lateIntervals: 2,
} as const;

export interface RecentStalls {
  /** `stalled` events in the window among those examined. */
  count: number;
  /** True when the COUNT cap was reached: older stalls of the window were not examined. */
  capped: boolean;
}

export async function recentStalls(
  client: RedisClient,
  keys: QueueKeys,
  now: number,
): Promise<RecentStalls> {
  const since = now - PROBLEM_SIGNAL_LIMITS.stalledWindowMinutes * 60_000;
  const entries = await client.xrevrange(
    keys.events,
    '+',
    String(Math.max(0, since)),
    'COUNT',
    PROBLEM_SIGNAL_LIMITS.eventsScanned,
  );
  let count = 0;
  for (const [, fields] of entries) {
    // Fields are [name, value, ...]; the event name is the first pair in both libraries.
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'event') {
        if (fields[i + 1] === 'stalled') count += 1;
        break;
      }
    }
  }
  return { count, capped: entries.length >= PROBLEM_SIGNAL_LIMITS.eventsScanned };
}

export interface MissingWorker {
  id: string;
  /** ms since epoch of its last beat. */
  lastHeartbeat: number;
  /** False when its record is still there (late, not yet expired). */
  expired: boolean;
}

export async function missingWorkers(
  client: RedisClient,
  keys: QueueKeys,
  now: number,
): Promise<MissingWorker[]> {
  const index = workersIndexKey(keys);
  const reply = await client.zrangebyscore(
    index,
    now - HEARTBEAT_INDEX_KEEP_MS,
    '+inf',
    'WITHSCORES',
    'LIMIT',
    0,
    PROBLEM_SIGNAL_LIMITS.heartbeatCandidates,
  );
  if (reply.length === 0) return [];
  const candidates: { id: string; lastHeartbeat: number }[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    candidates.push({ id: reply[i]!, lastHeartbeat: Number(reply[i + 1]) });
  }
  const pipeline = client.pipeline();
  for (const { id } of candidates) pipeline.hget(workerRecordKey(keys, id), 'interval');
  const intervals = (await pipeline.exec()) ?? [];
  const missing: MissingWorker[] = [];
  candidates.forEach((candidate, index) => {
    const [error, value] = intervals[index] ?? [null, null];
    if (error) throw error;
    if (value === null || value === undefined) {
      missing.push({ ...candidate, expired: true });
      return;
    }
    const interval = Number(value);
    const late = now - candidate.lastHeartbeat > PROBLEM_SIGNAL_LIMITS.lateIntervals * interval;
    if (Number.isFinite(interval) && interval > 0 && late) {
      missing.push({ ...candidate, expired: false });
    }
  });
  return missing;
}
