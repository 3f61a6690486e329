/**
 * QueueBackend in memory: one queue's producer, worker and job operations over the memory
 * store. Each method runs to its end without awaiting, so no other call interleaves with it:
 * that is what makes it atomic, as a Lua script is on Redis.
 */
import type { DurableOptions } from '../../job/options';
import type { QueueKeys } from '../../queue/keys';
import type {
  AddResult,
  BatchFetchRequest,
  BatchFetchResult,
  CancelOutcome,
  CompleteBatchRequest,
  CompleteBatchResult,
  FetchIdentity,
  FetchResult,
  FinishRequest,
  Metrics,
  NewJob,
  QueueBackend,
  RawJobHash,
  RetryRequest,
  WaitOptions,
  WaitOutcome,
} from '../queue-backend';
import { workerWakeKey } from '../../worker/heartbeat-keys';
import { fetchJobBatch, fetchNextJob } from './fetch-job';
import { afterFinish, finishActiveJob, leaveActive } from './finish-job';
import { insertJob } from './insert-job';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { refusal } from './refusals';

export class MemoryQueueBackend implements QueueBackend {
  private readonly queue: MemoryQueue;

  constructor(
    private readonly store: MemoryStore,
    keys: QueueKeys,
    /** The connection's: closing it ends the waits made through it. */
    private readonly closed?: AbortSignal,
  ) {
    this.queue = store.queue(keys);
  }

  private add(job: NewJob): AddResult {
    const result = insertJob(this.store, this.queue, job, Date.now());
    if ('refusal' in result) throw refusal(result.refusal, job.customId ?? '(new)', 'addJob');
    return {
      jobId: result.jobId,
      duplicate: result.outcome === 'duplicate',
      deduplicated: result.outcome === 'deduplicated',
    };
  }

  /** No replicas here: a durable add reports none confirmed. */
  async addJob(job: NewJob, durable?: DurableOptions): Promise<AddResult> {
    const result = this.add(job);
    return durable ? { ...result, replicasConfirmed: 0 } : result;
  }

  async addJobs(jobs: NewJob[], durable?: DurableOptions): Promise<AddResult[]> {
    return jobs.map((job) => {
      const result = this.add(job);
      return durable ? { ...result, replicasConfirmed: 0 } : result;
    });
  }

  async writeQueueMeta(fields: Record<string, string>): Promise<void> {
    Object.assign(this.queue.meta, fields);
  }

  async publishEvent(fields: string[], maxLength: number): Promise<void> {
    this.queue.events.add([...fields], maxLength);
  }

  async fetchNextJob(identity: FetchIdentity): Promise<FetchResult> {
    return fetchNextJob(this.queue, identity, Date.now());
  }

  async finishJob(request: FinishRequest): Promise<FetchResult | undefined> {
    const now = request.now ?? Date.now();
    const refused = finishActiveJob(this.store, this.queue, { ...request, now });
    if (refused) throw refusal(refused, request.jobId, `moveToFinished(${request.outcome})`);
    const next = request.fetchNext ? fetchNextJob(this.queue, request.fetchNext, now) : undefined;
    if (next?.kind !== 'job') afterFinish(this.queue);
    return next;
  }

  async retryJob(request: RetryRequest): Promise<void> {
    const queue = this.queue;
    const now = Date.now();
    if (request.delay > 0) {
      this.moveToDelayed(request.jobId, request.token, now + request.delay, false, request.fields);
      return;
    }
    queue.promoteDue(now);
    const refused = leaveActive(queue, request.jobId, request.token, request.fields);
    if (refused) throw refusal(refused, request.jobId, 'retryJob');
    queue.groups.leaveActiveOf(request.jobId);
    const hash = queue.jobs.get(request.jobId)!.hash;
    queue.enqueueReady(request.jobId, Number(hash.priority) || 0, request.lifo);
    hash.atm = String((Number(hash.atm) || 0) + 1);
    queue.emit('waiting', { jobId: request.jobId, prev: 'active' });
  }

  private moveToDelayed(
    jobId: string,
    token: string,
    dueTs: number,
    postponed: boolean,
    fields: Record<string, string> = {},
  ): void {
    const queue = this.queue;
    const refused = leaveActive(queue, jobId, token, fields);
    if (refused) throw refusal(refused, jobId, 'moveToDelayed');
    const hash = queue.jobs.get(jobId)!.hash;
    if (!postponed) hash.atm = String((Number(hash.atm) || 0) + 1);
    hash.delay = String(Math.max(0, Math.round(dueTs - Date.now())));
    queue.groups.leaveActiveOf(jobId);
    queue.delay(jobId, dueTs);
    queue.emit('delayed', { jobId, delay: dueTs });
  }

  async fetchJobBatch(request: BatchFetchRequest): Promise<BatchFetchResult> {
    return fetchJobBatch(this.queue, request, Date.now());
  }

  async completeJobBatch(request: CompleteBatchRequest): Promise<CompleteBatchResult> {
    const now = request.now ?? Date.now();
    const errors = request.jobs.map((job) => {
      const refused = finishActiveJob(this.store, this.queue, {
        jobId: job.jobId,
        token: job.token ?? request.token,
        outcome: 'completed',
        value: job.value,
        keep: job.keep,
        attempts: 0,
        metricsMaxDataPoints: request.metricsMaxDataPoints,
        now,
      });
      return refused ? refusal(refused, job.jobId, 'moveToFinishedBatch') : undefined;
    });
    const next = request.fetchNext ? fetchJobBatch(this.queue, request.fetchNext, now) : undefined;
    if (next?.kind !== 'batch') afterFinish(this.queue);
    return next ? { errors, next } : { errors };
  }

  async postponeJob(jobId: string, token: string, dueTs: number): Promise<void> {
    this.moveToDelayed(jobId, token, dueTs, true);
  }

  async moveActiveJobToWait(jobId: string, token: string): Promise<number> {
    const queue = this.queue;
    const job = queue.jobs.get(jobId);
    if (!job) throw refusal('job-missing', jobId, 'moveJobFromActiveToWait');
    const owner = token === '0' ? token : queue.lockOwner(jobId);
    if (owner === undefined) throw refusal('lock-missing', jobId, 'moveJobFromActiveToWait');
    if (owner !== token) throw refusal('lock-mismatch', jobId, 'moveJobFromActiveToWait');
    queue.locks.delete(jobId);
    queue.stalled.delete(jobId);
    if (queue.removeFromActive(jobId)) {
      const gid = queue.groups.leaveActiveOf(jobId);
      const priority = Number(job.hash.priority) || 0;
      if (gid !== undefined) queue.groups.push(gid, jobId, true);
      // Ahead of every other job of its priority.
      else if (priority > 0) queue.prioritized.set(jobId, priority * 2 ** 32);
      else queue.wait.unshift(jobId);
      queue.signalReady();
      queue.emit('waiting', { jobId, prev: 'active' });
    }
    const ttl = queue.limiter?.expiresAt === undefined ? 0 : queue.limiter.expiresAt - Date.now();
    return ttl > 0 ? ttl : 0;
  }

  async holdsLock(jobId: string, token: string): Promise<boolean> {
    return this.queue.lockOwner(jobId) === token;
  }

  async noteCancelOutcome(jobId: string, outcome: CancelOutcome): Promise<void> {
    const event = outcome === 'completed-anyway' ? 'cancel-ignored' : 'cancelled';
    this.queue.emit(event, { jobId, outcome });
  }

  async extendLocks(jobIds: string[], tokens: string[], duration: number): Promise<string[]> {
    const now = Date.now();
    return jobIds.filter((jobId, i) => {
      if (this.queue.lockOwner(jobId, now) !== tokens[i]) return true;
      this.queue.locks.set(jobId, { token: tokens[i]!, expiresAt: now + duration });
      this.queue.stalled.delete(jobId);
      return false;
    });
  }

  async recoverStalledJobs(maxStalledCount: number, stalledInterval: number): Promise<string[]> {
    const queue = this.queue;
    const now = Date.now();
    if (queue.stalledCheckUntil > now) return [];
    queue.stalledCheckUntil = now + stalledInterval;
    const recovered: string[] = [];
    for (const jobId of queue.stalled) {
      if (queue.lockOwner(jobId, now) !== undefined || !queue.removeFromActive(jobId)) continue;
      const hash = queue.jobs.get(jobId)!.hash;
      const stalledCount = (Number(hash.stc) || 0) + 1;
      hash.stc = String(stalledCount);
      // Iterations of a live job scheduler are never failed for stalling.
      const schedulerId = hash.rjk;
      const ofScheduler = schedulerId !== undefined && queue.schedulers.has(schedulerId);
      if (stalledCount > maxStalledCount && !ofScheduler) {
        hash.defa = 'job stalled more than allowable limit';
      }
      const gid = queue.groups.leaveActiveOf(jobId);
      if (gid !== undefined) queue.groups.push(gid, jobId, true);
      else queue.wait.unshift(jobId);
      queue.signalReady();
      queue.emit('waiting', { jobId, prev: 'active' });
      queue.emit('stalled', { jobId });
      recovered.push(jobId);
    }
    queue.stalled = new Set(queue.active);
    return recovered;
  }

  async waitForMarker(timeoutSeconds: number, options: WaitOptions = {}): Promise<WaitOutcome> {
    const wakeBox =
      options.wakeWorker === undefined
        ? undefined
        : workerWakeKey(this.queue.keys, options.wakeWorker);
    const boxes = wakeBox ? [this.queue.markerBox, wakeBox] : [this.queue.markerBox];
    const signal = this.waitSignal(options.signal);
    const popped = await this.store.signals.wait(boxes, timeoutSeconds * 1000, signal);
    if (!popped) return signal?.aborted ? 'interrupted' : 'timeout';
    if (popped.box === wakeBox) {
      options.onWake?.(popped.member);
      return { wake: popped.member };
    }
    return popped.score;
  }

  async waitForWake(
    timeoutSeconds: number,
    workerId: string,
    options: Omit<WaitOptions, 'wakeWorker'> = {},
  ): Promise<Exclude<WaitOutcome, number>> {
    const box = workerWakeKey(this.queue.keys, workerId);
    const signal = this.waitSignal(options.signal);
    const popped = await this.store.signals.wait([box], timeoutSeconds * 1000, signal);
    if (!popped) return signal?.aborted ? 'interrupted' : 'timeout';
    options.onWake?.(popped.member);
    return { wake: popped.member };
  }

  /** A wait ends with its own signal or with the connection it was made through. */
  private waitSignal(signal?: AbortSignal): AbortSignal | undefined {
    const signals = [signal, this.closed].filter((s): s is AbortSignal => s !== undefined);
    return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  }

  async updateProgress(jobId: string, progressJson: string): Promise<void> {
    const job = this.queue.jobs.get(jobId);
    if (!job) throw refusal('job-missing', jobId, 'updateProgress');
    job.hash.progress = progressJson;
    this.queue.emit('progress', { jobId, data: progressJson });
  }

  async addLog(jobId: string, line: string, keepLogs?: number): Promise<number> {
    const job = this.queue.jobs.get(jobId);
    if (!job) throw refusal('job-missing', jobId, 'addLog');
    job.logs.push(line);
    if (keepLogs === undefined) return job.logs.length;
    if (keepLogs > 0) job.logs = job.logs.slice(-keepLogs);
    return Math.min(keepLogs, job.logs.length);
  }

  async clearLogs(jobId: string, keepLogs?: number): Promise<void> {
    const job = this.queue.jobs.get(jobId);
    if (!job) return;
    job.logs = keepLogs !== undefined && keepLogs > 0 ? job.logs.slice(-keepLogs) : [];
  }

  async updateData(jobId: string, dataJson: string): Promise<void> {
    const job = this.queue.jobs.get(jobId);
    if (!job) throw refusal('job-missing', jobId, 'updateData');
    job.hash.data = dataJson;
  }

  async getJobHash(jobId: string): Promise<RawJobHash | undefined> {
    const job = this.queue.jobs.get(jobId);
    return job ? { ...job.hash } : undefined;
  }

  async getMetrics(type: 'completed' | 'failed', start: number, end: number): Promise<Metrics> {
    const metrics = this.queue.metrics[type];
    const { data } = metrics;
    const from = start < 0 ? Math.max(0, data.length + start) : start;
    const to = end < 0 ? data.length + end : end;
    return {
      meta: {
        count: metrics.count,
        prevTS: metrics.prevTS ?? 0,
        prevCount: metrics.prevCount,
      },
      data: data.slice(from, to + 1),
      count: data.length,
    };
  }

  /** The owner of an open deduplication window. */
  private windowOwner(deduplicationId: string): string | undefined {
    const window = this.queue.dedup.get(deduplicationId);
    if (!window || (window.expiresAt !== undefined && window.expiresAt <= Date.now())) {
      return undefined;
    }
    return window.jobId;
  }

  async getDeduplicationJobId(deduplicationId: string): Promise<string | undefined> {
    return this.windowOwner(deduplicationId);
  }

  async removeDeduplicationKey(deduplicationId: string): Promise<number> {
    const open = this.windowOwner(deduplicationId) !== undefined;
    this.queue.dedup.delete(deduplicationId);
    return open ? 1 : 0;
  }

  async removeDeduplicationKeyOf(deduplicationId: string, jobId: string): Promise<number> {
    if (this.windowOwner(deduplicationId) !== jobId) return 0;
    this.queue.dedup.delete(deduplicationId);
    return 1;
  }
}
