/**
 * Keys of OxMQ's worker heartbeats. They live under the queue's base key next to bullmq's, in an
 * `oxmq:` namespace bullmq never reads, writes or deletes (see docs/redis-keys.md).
 */
import type { QueueKeys } from '../keys';

/** Sorted set of the workers of a queue, scored by their last heartbeat (ms). */
export function workersIndexKey(keys: QueueKeys): string {
  return `${keys.base}oxmq:workers`;
}

/** Hash: one worker's heartbeat record (and the `command` left for it). */
export function workerRecordKey(keys: QueueKeys, workerId: string): string {
  return `${keys.base}oxmq:worker:${workerId}`;
}

/** Hash jobId -> reason: cancel requests waiting for the worker's next heartbeat. */
export function workerCancelKey(keys: QueueKeys, workerId: string): string {
  return `${workerRecordKey(keys, workerId)}:cancel`;
}

/** The worker id in a lock token (`<workerId>:<n>`), or undefined for a token of another form. */
export function workerIdOfToken(token: string): string | undefined {
  const at = token.lastIndexOf(':');
  return at > 0 ? token.slice(0, at) : undefined;
}

/** Commands a worker reads on its heartbeat. */
export type WorkerCommand = 'quiet' | 'resume';
