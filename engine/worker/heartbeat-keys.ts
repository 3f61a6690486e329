/**
 * Keys of OxMQ's worker heartbeats. They live under the queue's base key next to bullmq's, in an
 * `oxmq:` namespace bullmq never reads, writes or deletes (see docs/redis-keys.md).
 */
import type { CancelRequest } from '../backend/worker-registry';
import type { QueueKeys } from '../queue/keys';

/** Sorted set of the workers of a queue, scored by their last heartbeat (ms). */
export function workersIndexKey(keys: QueueKeys): string {
  return `${keys.base}oxmq:workers`;
}

/** Hash: one worker's heartbeat record (and the `command` left for it). */
export function workerRecordKey(keys: QueueKeys, workerId: string): string {
  return `${keys.base}oxmq:worker:${workerId}`;
}

/** Hash jobId -> request (JSON: reason, force): cancel requests the worker has not taken yet. */
export function workerCancelKey(keys: QueueKeys, workerId: string): string {
  return `${workerRecordKey(keys, workerId)}:cancel`;
}

/**
 * Zset the worker blocks on with the queue's marker (same hash slot: one queue's keys share
 * one): a member here ends its wait at once, so a cancel request reaches it now rather than at
 * its next heartbeat. bullmq workers block on the marker alone and never see it.
 */
export function workerWakeKey(keys: QueueKeys, workerId: string): string {
  return `${workerRecordKey(keys, workerId)}:wake`;
}

/**
 * Members of a wake key: `cancel` (requestJobCancel: requests wait in the worker's cancel hash)
 * and `poke` (the worker ends its own wait on a Redis Cluster, where CLIENT UNBLOCK cannot reach
 * the node holding it).
 */
export const WAKE_MEMBER = { cancel: 'cancel', poke: 'poke' } as const;

export type { CancelRequest, WorkerCommand } from '../backend/worker-registry';

/**
 * A request as stored in the worker's cancel hash: JSON, or (written by an older OxMQ) the bare
 * reason.
 */
export function parseCancelRequest(value: string): CancelRequest {
  try {
    const parsed = JSON.parse(value) as { reason?: unknown; force?: unknown };
    if (parsed && typeof parsed === 'object' && typeof parsed.reason === 'string') {
      return { reason: parsed.reason, force: parsed.force === true };
    }
  } catch {
    // Not JSON: the bare reason.
  }
  return { reason: value, force: false };
}

/** The worker id in a lock token (`<workerId>:<n>`), or undefined for a token of another form. */
export function workerIdOfToken(token: string): string | undefined {
  const at = token.lastIndexOf(':');
  return at > 0 ? token.slice(0, at) : undefined;
}
