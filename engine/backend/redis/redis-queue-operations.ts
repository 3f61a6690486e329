import type { RedisClient } from './connection';
import type { QueueKeys } from '../../queue/keys';
import type { RawJobHash } from '../queue-backend';
import type {
  CancelRequestOutcome,
  CleanState,
  DependencyKind,
  DependencyListing,
  DependencyPageRequest,
  JobState,
  JobStateReply,
  QueueOperations,
  RawDependencies,
  RawDependencyPages,
} from '../queue-operations';
import * as dependencies from './dependencies';
import { getDependencyListing } from './dependency-page';
import * as moves from './job-moves';
import * as cleanup from './queue-cleanup';
import * as controls from './queue-controls';
import * as housekeeping from './queue-housekeeping';
import * as ranges from './queue-ranges';
import * as reads from './queue-reads';
import { removeUnprocessedChildren } from './remove-unprocessed-children';
import { requestJobCancel } from './worker-requests';

/**
 * QueueOperations on Redis. The work is split by concern: reads (queue-reads), destructive
 * operations (queue-cleanup), per-job moves (job-moves), switches and limits (queue-controls).
 * Each produces the Redis state bullmq 6.7.0 produces for the same operation (docs/redis-keys.md).
 */
export class RedisQueueOperations implements QueueOperations {
  constructor(
    readonly client: RedisClient,
    readonly keys: QueueKeys,
  ) {}

  getCounts(types: JobState[]): Promise<Record<string, number>> {
    return reads.getCounts(this.client, this.keys, types);
  }

  getJobsInStates(
    types: JobState[],
    start: number,
    end: number,
    asc: boolean,
  ): Promise<{ id: string; hash: RawJobHash }[]> {
    return reads.getJobsInStates(this.client, this.keys, types, start, end, asc);
  }

  getState(jobId: string): Promise<JobStateReply> {
    return reads.getState(this.client, this.keys, jobId);
  }

  getLogs(
    jobId: string,
    start: number,
    end: number,
    asc: boolean,
  ): Promise<{ logs: string[]; count: number }> {
    return reads.getLogs(this.client, this.keys, jobId, start, end, asc);
  }

  getMeta(): Promise<Record<string, string>> {
    return reads.getMeta(this.client, this.keys);
  }

  pause(): Promise<void> {
    return controls.pause(this.client, this.keys);
  }

  resume(): Promise<void> {
    return controls.resume(this.client, this.keys);
  }

  isPaused(): Promise<boolean> {
    return controls.isPaused(this.client, this.keys);
  }

  drain(includeDelayed: boolean): Promise<number> {
    return cleanup.drain(this.client, this.keys, includeDelayed);
  }

  clean(grace: number, limit: number, state: CleanState): Promise<string[]> {
    return cleanup.clean(this.client, this.keys, grace, limit, state);
  }

  obliterate(opts: { force: boolean; count: number }): Promise<void> {
    return cleanup.obliterate(this.client, this.keys, opts);
  }

  removeJob(jobId: string, removeChildren: boolean): Promise<number> {
    return cleanup.removeJob(this.client, this.keys, jobId, removeChildren);
  }

  retryJobs(state: 'failed' | 'completed', count: number, timestamp: number): Promise<void> {
    return moves.retryJobs(this.client, this.keys, state, count, timestamp);
  }

  promoteJobs(count: number): Promise<void> {
    return moves.promoteJobs(this.client, this.keys, count);
  }

  reprocessJob(
    jobId: string,
    state: 'completed' | 'failed',
    opts: { lifo: boolean; resetAttemptsMade: boolean; resetAttemptsStarted: boolean },
  ): Promise<void> {
    return moves.reprocessJob(this.client, this.keys, jobId, state, opts);
  }

  promoteJob(jobId: string): Promise<void> {
    return moves.promoteJob(this.client, this.keys, jobId);
  }

  changeDelay(jobId: string, delay: number): Promise<void> {
    return moves.changeDelay(this.client, this.keys, jobId, delay);
  }

  changePriority(jobId: string, priority: number, lifo: boolean): Promise<void> {
    return moves.changePriority(this.client, this.keys, jobId, priority, lifo);
  }

  setGlobalConcurrency(concurrency: number | undefined): Promise<void> {
    return controls.setGlobalConcurrency(this.client, this.keys, concurrency);
  }

  setGlobalRateLimit(limit: { max: number; duration: number } | undefined): Promise<void> {
    return controls.setGlobalRateLimit(this.client, this.keys, limit);
  }

  rateLimit(ms: number): Promise<void> {
    return controls.rateLimit(this.client, this.keys, ms);
  }

  getRateLimitTtl(maxJobs?: number): Promise<number> {
    return controls.getRateLimitTtl(this.client, this.keys, maxJobs);
  }

  getDelayedCount(timestamp?: number): Promise<number> {
    return ranges.getDelayedCount(this.client, this.keys, timestamp);
  }

  getCountsPerPriority(priorities: number[]): Promise<Record<string, number>> {
    return ranges.getCountsPerPriority(this.client, this.keys, priorities);
  }

  getRanges(types: JobState[], start: number, end: number, asc: boolean): Promise<string[]> {
    return ranges.getRanges(this.client, this.keys, types, start, end, asc);
  }

  getDependencyListing(
    parentId: string,
    type: 'processed' | 'pending',
    start: number,
    end: number,
  ): Promise<DependencyListing> {
    return getDependencyListing(this.client, this.keys, parentId, type, start, end);
  }

  removeRateLimitKey(): Promise<number> {
    return housekeeping.removeRateLimitKey(this.client, this.keys);
  }

  isMaxed(): Promise<boolean> {
    return housekeeping.isMaxed(this.client, this.keys);
  }

  trimEvents(maxLength: number): Promise<number> {
    return housekeeping.trimEvents(this.client, this.keys, maxLength);
  }

  requestJobCancel(
    jobId: string,
    reason: string,
    opts?: { force?: boolean },
  ): Promise<CancelRequestOutcome> {
    return requestJobCancel(this.client, this.keys, jobId, reason, opts);
  }

  getProcessedChildren(jobId: string): Promise<Record<string, string>> {
    return dependencies.getProcessedChildren(this.client, this.keys, jobId);
  }

  getIgnoredChildrenFailures(jobId: string): Promise<Record<string, string>> {
    return dependencies.getIgnoredChildrenFailures(this.client, this.keys, jobId);
  }

  getDependencies(jobId: string): Promise<RawDependencies> {
    return dependencies.getDependencies(this.client, this.keys, jobId);
  }

  getDependencyPages(
    jobId: string,
    requests: Partial<Record<DependencyKind, DependencyPageRequest>>,
  ): Promise<RawDependencyPages> {
    return dependencies.getDependencyPages(this.client, this.keys, jobId, requests);
  }

  getDependencyCounts(jobId: string, kinds: DependencyKind[]): Promise<number[]> {
    return dependencies.getDependencyCounts(this.client, this.keys, jobId, kinds);
  }

  moveToWaitingChildren(jobId: string, token: string, childKey?: string): Promise<boolean> {
    return dependencies.moveToWaitingChildren(this.client, this.keys, jobId, token, childKey);
  }

  removeChildDependency(jobId: string, parentKey?: string): Promise<boolean> {
    return dependencies.removeChildDependency(this.client, this.keys, jobId, parentKey);
  }

  removeUnprocessedChildren(jobId: string): Promise<number> {
    return removeUnprocessedChildren(this.client, this.keys, jobId);
  }
}
