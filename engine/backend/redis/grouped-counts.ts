/**
 * The tenant-group jobs a plain state read misses (lua/countGroupedJobs-1.lua): ready jobs in
 * the groups' lines belong to `waiting`, delayed ones in `Q group-delayed` to `delayed`. Queued
 * on a pipeline beside the plain counts, so a count stays one round trip.
 */
import type { ChainableCommander } from 'ioredis';
import { UnexpectedReplyError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { queueScript } from './run-script';

export interface GroupedCounts {
  waiting: number;
  delayed: number;
  /** Creation time (ms) of the longest-waiting job next in a group's line; null when none. */
  oldestWaitingAt: number | null;
}

/** The pipeline's client must have had registerScripts before the pipeline was made. */
export function queueGroupedCounts(pipeline: ChainableCommander, keys: QueueKeys): void {
  queueScript(pipeline, 'countGroupedJobs', [keys.base], []);
}

export function parseGroupedCounts(reply: unknown): GroupedCounts {
  if (!Array.isArray(reply) || reply.length !== 3) {
    throw new UnexpectedReplyError(`countGroupedJobs replied ${String(reply)}`);
  }
  const [waiting, delayed, oldest] = reply as unknown[];
  return {
    waiting: Number(waiting),
    delayed: Number(delayed),
    oldestWaitingAt: oldest === null || oldest === false ? null : Number(oldest),
  };
}
