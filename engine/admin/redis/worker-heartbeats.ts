/**
 * The live OxMQ workers of a queue, from their heartbeat records, and the commands the console
 * sends them through Redis (quiet, resume, cancel a job). bullmq workers write no heartbeat:
 * listWorkers (workers.ts) sees every connected worker of either library, this sees OxMQ's.
 */
import type { RedisClient } from '../../backend/redis/connection';
import type { CancelRequestOutcome } from '../../backend/queue-operations';
import { commandWorker, requestJobCancel } from '../../backend/redis/worker-requests';
import { QueueKeys } from '../../queue/keys';
import { workerRecordKey, workersIndexKey } from '../../worker/heartbeat-keys';

export interface WorkerHeartbeatRecord {
  /** The worker's id (the first part of its lock tokens). */
  id: string;
  /** The Worker's `name` option; undefined for workers started without one. */
  workerName?: string;
  queue: string;
  prefix: string;
  host: string;
  pid: number;
  /** OxMQ version of the worker. */
  version: string;
  concurrency: number;
  /** Jobs in flight (exact). */
  active: number;
  /** Ids of the jobs in flight, at most 100 of them. */
  jobIds: string[];
  /** Jobs completed since the worker started. */
  completed: number;
  /** Failed attempts since the worker started (retried ones included). */
  failed: number;
  lockRenewalFailures: number;
  /** Quieted (takes no new job) by quietWorker. */
  quiet: boolean;
  /** Paused in its own process (worker.pause()); resumeWorker does not undo that. */
  paused: boolean;
  /** Epoch ms. */
  startedAt: number;
  /** Epoch ms of the last heartbeat. */
  lastHeartbeat: number;
  /** The worker's heartbeat interval (ms); the record expires after three of them. */
  heartbeatInterval: number;
  /**
   * Where Redis sees the worker's named connection come from (CLIENT LIST's `addr`), as the
   * worker saw it; undefined when unknown (older workers, a unix socket).
   */
  clientAddress?: string;
  /**
   * The Worker's own `limiter` option (at most `max` job starts per `duration` ms, applied by
   * the worker's fetches); undefined for a worker without one, or one too old to say.
   */
  limiter?: { max: number; duration: number };
}

export interface WorkerHeartbeatList {
  workers: WorkerHeartbeatRecord[];
  /** Index members (live, or expired and not pruned yet), so a caller knows the list was cut. */
  total: number;
}

export const WORKER_HEARTBEAT_LIMITS = { defaultLimit: 100, maxLimit: 1_000 } as const;

/** Live OxMQ workers of one queue, most recent heartbeat first, at most `limit`. */
export async function listWorkerHeartbeats(
  client: RedisClient,
  prefix: string,
  queue: string,
  { limit = WORKER_HEARTBEAT_LIMITS.defaultLimit }: { limit?: number } = {},
): Promise<WorkerHeartbeatList> {
  const keys = new QueueKeys(prefix, queue);
  const count = Math.max(1, Math.min(Math.floor(limit), WORKER_HEARTBEAT_LIMITS.maxLimit));
  const [ids, total] = await Promise.all([
    client.zrevrange(workersIndexKey(keys), 0, count - 1),
    client.zcard(workersIndexKey(keys)),
  ]);
  if (ids.length === 0) return { workers: [], total };
  const pipeline = client.pipeline();
  for (const id of ids) pipeline.hgetall(workerRecordKey(keys, id));
  const replies = (await pipeline.exec()) ?? [];
  const workers: WorkerHeartbeatRecord[] = [];
  replies.forEach(([error, hash]) => {
    if (error) throw error;
    const record = toRecord(hash as Record<string, string>);
    // An index member whose record expired: a worker that died, pruned on a later beat.
    if (record) workers.push(record);
  });
  return { workers, total };
}

function toRecord(hash: Record<string, string>): WorkerHeartbeatRecord | undefined {
  if (!hash.id || !hash.lastHeartbeat) return undefined;
  const record: WorkerHeartbeatRecord = {
    id: hash.id,
    queue: hash.queue ?? '',
    prefix: hash.prefix ?? '',
    host: hash.host ?? '',
    pid: int(hash.pid),
    version: hash.version ?? '',
    concurrency: int(hash.concurrency),
    active: int(hash.active),
    jobIds: jobIds(hash.jobs),
    completed: int(hash.completed),
    failed: int(hash.failed),
    lockRenewalFailures: int(hash.lockRenewalFailures),
    quiet: hash.quiet === '1',
    paused: hash.paused === '1',
    startedAt: int(hash.startedAt),
    lastHeartbeat: int(hash.lastHeartbeat),
    heartbeatInterval: int(hash.interval),
  };
  if (hash.name) record.workerName = hash.name;
  if (hash.addr) record.clientAddress = hash.addr;
  const limiter = limiterOf(hash.limiterMax, hash.limiterDuration);
  if (limiter) record.limiter = limiter;
  return record;
}

function int(value: string | undefined): number {
  const number = Number(value);
  return Number.isFinite(number) ? number : 0;
}

/** A limiter is a pair of positive numbers; anything else (empty: no limiter) is none. */
function limiterOf(
  max: string | undefined,
  duration: string | undefined,
): { max: number; duration: number } | undefined {
  const limit = { max: Number(max), duration: Number(duration) };
  return limit.max > 0 && limit.duration > 0 ? limit : undefined;
}

function jobIds(value: string | undefined): string[] {
  try {
    const parsed: unknown = JSON.parse(value ?? '[]');
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * Quiets a live OxMQ worker: on its next heartbeat it stops taking jobs; running ones finish.
 * False when no live OxMQ worker of the queue has that id.
 */
export function quietWorker(
  client: RedisClient,
  prefix: string,
  queue: string,
  workerId: string,
): Promise<boolean> {
  return commandWorker(client, new QueueKeys(prefix, queue), workerId, 'quiet');
}

/** Undoes quietWorker on the worker's next heartbeat; false when no such live worker. */
export function resumeWorker(
  client: RedisClient,
  prefix: string,
  queue: string,
  workerId: string,
): Promise<boolean> {
  return commandWorker(client, new QueueKeys(prefix, queue), workerId, 'resume');
}

/** queue.cancelJob for the console: asks the OxMQ worker running the job to cancel it. */
export function cancelActiveJob(
  client: RedisClient,
  prefix: string,
  queue: string,
  jobId: string,
  reason = '',
  opts: { force?: boolean } = {},
): Promise<CancelRequestOutcome> {
  return requestJobCancel(client, new QueueKeys(prefix, queue), jobId, reason, opts);
}
