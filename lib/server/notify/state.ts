/**
 * The notifier's state in Redis, per queue prefix (docs/redis-keys.md, "Console"):
 *
 * - the open problems, a hash beside the `notifier` lease (engine/admin/redis/lease.ts) and under
 *   its   hash tag, so that one script can check the lease and write the state together: a console
 *   that lost the lease (a stalled event loop outlived the TTL) cannot commit a round, and so
 *   sends nothing the new holder will send again. Field `<queue>:<kind>` (a queue name holds no
 *   `:`), value JSON. Bounded: six kinds per queue, NOTIFY_LIMITS.maxQueues queues; it lives a
 *   day after the last round that wrote it.
 * - the muted queues, a hash: field the queue name, value JSON `{by, at}`. A mute has no expiry
 *   (it lasts until someone unmutes); at most NOTIFY_LIMITS.maxMutes, and the mutes of queues
 *   that no longer exist are dropped by the notifier.
 */
import type { RedisClient } from 'oxmq';
import { leaseKeys, type QueueProblemSeverity } from 'oxmq/admin';
import { isNotifyKind, type NotifyKind } from './messages';

export const NOTIFIER_LEASE_NAME = 'notifier';

export const NOTIFY_LIMITS = {
  /** Queues per prefix one round looks at (discovery order: by name). */
  maxQueues: 1_000,
  /** Overviews read at once. */
  overviewPage: 50,
  /** Muted queues per prefix. */
  maxMutes: 1_000,
  /** How long the open problems outlive the last round that wrote them. */
  stateTtlMs: 24 * 60 * 60 * 1000,
} as const;

export interface NotifierKeys {
  lease: string;
  open: string;
  muted: string;
}

export function notifierKeys(prefix: string): NotifierKeys {
  const [lease] = leaseKeys(prefix, NOTIFIER_LEASE_NAME);
  return { lease, open: `${lease}:open`, muted: `{${prefix}:oxmq:notify}:muted` };
}

/** One open problem (or a pause not yet long enough) as the state hash keeps it. */
export interface OpenProblem {
  queue: string;
  kind: NotifyKind;
  severity: QueueProblemSeverity;
  message: string;
  /** ms: when a round first saw it (for a pause: when the pause was first seen). */
  startedAt: number;
  /** Whether `problem.started` went out: only then does its clear. */
  sent: boolean;
}

export const openField = (queue: string, kind: NotifyKind) => `${queue}:${kind}`;

function parseOpen(field: string, value: string): OpenProblem | null {
  const at = field.lastIndexOf(':');
  const queue = field.slice(0, at);
  const kind = field.slice(at + 1);
  if (at <= 0 || !isNotifyKind(kind)) return null;
  try {
    const record = JSON.parse(value) as Partial<OpenProblem>;
    if (typeof record.startedAt !== 'number') return null;
    return {
      queue,
      kind,
      severity: record.severity ?? 'warning',
      message: typeof record.message === 'string' ? record.message : '',
      startedAt: record.startedAt,
      sent: record.sent === true,
    };
  } catch {
    return null;
  }
}

function serializeOpen(problem: OpenProblem): string {
  const { severity, message, startedAt, sent } = problem;
  return JSON.stringify({ severity, message, startedAt, sent });
}

/** The open problems of a prefix, by field; unreadable entries are left out (and overwritten). */
export async function readOpen(
  client: RedisClient,
  keys: NotifierKeys,
): Promise<Map<string, OpenProblem>> {
  const raw = await client.hgetall(keys.open);
  const open = new Map<string, OpenProblem>();
  for (const [field, value] of Object.entries(raw)) {
    const problem = parseOpen(field, value);
    if (problem) open.set(field, problem);
  }
  return open;
}

/**
 * Writes a round's changes only while `holder` holds the lease; 1 when written, 0 when the
 * lease is another's (the round then sends nothing).
 * KEYS[1] lease, KEYS[2] open problems. ARGV: holder, TTL ms, n, n fields to delete, then
 * field/value pairs to set.
 */
const COMMIT_SCRIPT = `
if redis.call("GET", KEYS[1]) ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[3])
for i = 4, 3 + n do redis.call("HDEL", KEYS[2], ARGV[i]) end
for i = 4 + n, #ARGV, 2 do redis.call("HSET", KEYS[2], ARGV[i], ARGV[i + 1]) end
if redis.call("EXISTS", KEYS[2]) == 1 then redis.call("PEXPIRE", KEYS[2], ARGV[2]) end
return 1
`;

export async function commitRound(
  client: RedisClient,
  keys: NotifierKeys,
  holder: string,
  changes: { remove: readonly string[]; set: ReadonlyMap<string, OpenProblem> },
): Promise<boolean> {
  const pairs = [...changes.set].flatMap(([field, problem]) => [field, serializeOpen(problem)]);
  const reply = await client.eval(
    COMMIT_SCRIPT,
    2,
    keys.lease,
    keys.open,
    holder,
    NOTIFY_LIMITS.stateTtlMs,
    changes.remove.length,
    ...changes.remove,
    ...pairs,
  );
  return reply === 1;
}

export interface QueueMute {
  queue: string;
  /** The user who muted it. */
  by: string;
  /** ms since the epoch. */
  at: number;
}

export async function readMutes(
  client: RedisClient,
  keys: NotifierKeys,
): Promise<Map<string, QueueMute>> {
  const mutes = parseMutes(await client.hgetall(keys.muted));
  return new Map(mutes.map((mute) => [mute.queue, mute]));
}

/** A mute someone wrote by hand (not JSON) still mutes. */
function parseMutes(raw: Record<string, string>): QueueMute[] {
  return Object.entries(raw).map(([queue, value]) => {
    try {
      const parsed = JSON.parse(value) as { by?: unknown; at?: unknown };
      return {
        queue,
        by: typeof parsed.by === 'string' ? parsed.by : '',
        at: typeof parsed.at === 'number' ? parsed.at : 0,
      };
    } catch {
      return { queue, by: '', at: 0 };
    }
  });
}

/**
 * Mutes a queue; false when the prefix already holds NOTIFY_LIMITS.maxMutes other mutes.
 * KEYS[1] muted hash. ARGV: queue, record, cap.
 */
const MUTE_SCRIPT = `
if redis.call("HEXISTS", KEYS[1], ARGV[1]) == 0 and redis.call("HLEN", KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
return 1
`;

export async function muteQueue(
  client: RedisClient,
  prefix: string,
  queue: string,
  by: string,
  at = Date.now(),
): Promise<boolean> {
  const reply = await client.eval(
    MUTE_SCRIPT,
    1,
    notifierKeys(prefix).muted,
    queue,
    JSON.stringify({ by, at }),
    NOTIFY_LIMITS.maxMutes,
  );
  return reply === 1;
}

/** Unmutes a queue; false when it was not muted. */
export async function unmuteQueue(
  client: RedisClient,
  prefix: string,
  queue: string,
): Promise<boolean> {
  return (await client.hdel(notifierKeys(prefix).muted, queue)) === 1;
}

export async function queueMute(
  client: RedisClient,
  prefix: string,
  queue: string,
): Promise<QueueMute | null> {
  const value = await client.hget(notifierKeys(prefix).muted, queue);
  return value === null ? null : (parseMutes({ [queue]: value })[0] ?? null);
}

/** Drops the mutes of queues that are gone (the caller saw every queue of the prefix). */
export async function dropMutes(
  client: RedisClient,
  keys: NotifierKeys,
  queues: readonly string[],
): Promise<void> {
  if (queues.length > 0) await client.hdel(keys.muted, ...queues);
}
