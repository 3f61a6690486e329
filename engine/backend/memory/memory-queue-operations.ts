/**
 * QueueOperations in memory, split by concern as the Redis one is: reads (queue-reads),
 * destructive operations (queue-cleanup), per-job moves (job-moves), switches and limits
 * (queue-controls), a job's children (dependencies).
 */
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
import { checkJobId } from '../operation-validation';
import { requestJobCancel } from './cancel-request';
import * as dependencies from './dependencies';
import * as moves from './job-moves';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import * as cleanup from './queue-cleanup';
import * as controls from './queue-controls';
import * as reads from './queue-reads';

export class MemoryQueueOperations implements QueueOperations {
  private readonly queue: MemoryQueue;

  constructor(
    private readonly store: MemoryStore,
    readonly keys: QueueKeys,
  ) {
    this.queue = store.queue(keys);
  }

  async getCounts(types: JobState[]): Promise<Record<string, number>> {
    return reads.getCounts(this.queue, types);
  }

  async getJobsInStates(
    types: JobState[],
    start: number,
    end: number,
    asc: boolean,
  ): Promise<{ id: string; hash: RawJobHash }[]> {
    return reads.getJobsInStates(this.queue, types, start, end, asc);
  }

  async getState(jobId: string): Promise<JobStateReply> {
    return reads.getState(this.queue, jobId);
  }

  async getLogs(
    jobId: string,
    start: number,
    end: number,
    asc: boolean,
  ): Promise<{ logs: string[]; count: number }> {
    return reads.getLogs(this.queue, jobId, start, end, asc);
  }

  async getMeta(): Promise<Record<string, string>> {
    return { ...this.queue.meta };
  }

  async pause(): Promise<void> {
    controls.pause(this.queue);
  }

  async resume(): Promise<void> {
    controls.resume(this.queue);
  }

  async isPaused(): Promise<boolean> {
    return this.queue.isPaused();
  }

  async drain(includeDelayed: boolean): Promise<number> {
    return cleanup.drain(this.store, this.queue, includeDelayed);
  }

  async clean(grace: number, limit: number, state: CleanState): Promise<string[]> {
    return cleanup.clean(this.store, this.queue, grace, limit, state);
  }

  async obliterate(opts: { force: boolean; count: number }): Promise<void> {
    cleanup.obliterate(this.store, this.queue, opts);
  }

  async removeJob(jobId: string, removeChildren: boolean): Promise<number> {
    return cleanup.removeJob(this.store, this.queue, jobId, removeChildren);
  }

  async retryJobs(state: 'failed' | 'completed', count: number, timestamp: number): Promise<void> {
    moves.retryJobs(this.store, this.queue, state, count, timestamp);
  }

  async promoteJobs(count: number): Promise<void> {
    moves.promoteJobs(this.store, this.queue, count);
  }

  async reprocessJob(
    jobId: string,
    state: 'completed' | 'failed',
    opts: { lifo: boolean; resetAttemptsMade: boolean; resetAttemptsStarted: boolean },
  ): Promise<void> {
    moves.reprocessJob(this.store, this.queue, jobId, state, opts);
  }

  async promoteJob(jobId: string): Promise<void> {
    moves.promoteJob(this.queue, jobId);
  }

  async changeDelay(jobId: string, delay: number): Promise<void> {
    moves.changeDelay(this.queue, jobId, delay);
  }

  async changePriority(jobId: string, priority: number, lifo: boolean): Promise<void> {
    moves.changePriority(this.queue, jobId, priority, lifo);
  }

  async setGlobalConcurrency(concurrency: number | undefined): Promise<void> {
    controls.setGlobalConcurrency(this.queue, concurrency);
  }

  async setGlobalRateLimit(limit: { max: number; duration: number } | undefined): Promise<void> {
    controls.setGlobalRateLimit(this.queue, limit);
  }

  async rateLimit(ms: number): Promise<void> {
    controls.rateLimit(this.queue, ms);
  }

  async getRateLimitTtl(maxJobs?: number): Promise<number> {
    return controls.getRateLimitTtl(this.queue, maxJobs);
  }

  async getDelayedCount(timestamp?: number): Promise<number> {
    return reads.getDelayedCount(this.queue, timestamp);
  }

  async getCountsPerPriority(priorities: number[]): Promise<Record<string, number>> {
    return reads.getCountsPerPriority(this.queue, priorities);
  }

  async getRanges(types: JobState[], start: number, end: number, asc: boolean): Promise<string[]> {
    return reads.getRanges(this.queue, types, start, end, asc);
  }

  async getDependencyListing(
    parentId: string,
    type: 'processed' | 'pending',
    start: number,
    end: number,
  ): Promise<DependencyListing> {
    return dependencies.getDependencyListing(this.store, this.queue, parentId, type, start, end);
  }

  async removeRateLimitKey(): Promise<number> {
    return controls.removeRateLimitKey(this.queue);
  }

  async isMaxed(): Promise<boolean> {
    return controls.isMaxed(this.queue);
  }

  async trimEvents(maxLength: number): Promise<number> {
    return controls.trimEvents(this.queue, maxLength);
  }

  async requestJobCancel(
    jobId: string,
    reason: string,
    opts: { force?: boolean } = {},
  ): Promise<CancelRequestOutcome> {
    return requestJobCancel(this.queue, jobId, reason, opts.force === true);
  }

  async getProcessedChildren(jobId: string): Promise<Record<string, string>> {
    checkJobId(jobId);
    return Object.fromEntries(this.queue.jobs.get(jobId)?.processed ?? []);
  }

  async getIgnoredChildrenFailures(jobId: string): Promise<Record<string, string>> {
    checkJobId(jobId);
    return Object.fromEntries(this.queue.jobs.get(jobId)?.ignored ?? []);
  }

  async getDependencies(jobId: string): Promise<RawDependencies> {
    return dependencies.getDependencies(this.queue, jobId);
  }

  async getDependencyPages(
    jobId: string,
    requests: Partial<Record<DependencyKind, DependencyPageRequest>>,
  ): Promise<RawDependencyPages> {
    return dependencies.getDependencyPages(this.queue, jobId, requests);
  }

  async getDependencyCounts(jobId: string, kinds: DependencyKind[]): Promise<number[]> {
    return dependencies.getDependencyCounts(this.queue, jobId, kinds);
  }

  async moveToWaitingChildren(jobId: string, token: string, childKey?: string): Promise<boolean> {
    return dependencies.moveToWaitingChildren(this.queue, jobId, token, childKey);
  }

  async removeChildDependency(jobId: string, parentKey?: string): Promise<boolean> {
    return dependencies.removeChildDependency(this.store, this.queue, jobId, parentKey);
  }

  async removeUnprocessedChildren(jobId: string): Promise<number> {
    return cleanup.removeUnprocessedChildren(this.store, this.queue, jobId);
  }
}
