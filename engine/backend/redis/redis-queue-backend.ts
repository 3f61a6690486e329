import type { RedisClient } from './connection';
import { AddCoalescer } from './add-coalescer';
import { throwIfErrorCode } from '../../scripts/error-codes';
import { scriptKeys } from '../../scripts/script-keys';
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
import { assertClusterSafeParent } from './cluster-slots';
import { BlockingWaits } from './blocking-waits';
import { addJobArgs, addJobBatchArgs, addJobKeys, parseAddReply } from './add-job';
import { completeJobBatch, fetchJobBatch, identityJson } from './batch-moves';
import { readAllAtomically } from './atomic-reads';
import { flatToRecord, recordToFlat, runScript, runScriptThenWait } from './run-script';
import { recordCancelOutcome } from './worker-requests';

/**
 * QueueBackend on Redis: our Lua scripts for everything that must be atomic, plain commands for
 * reads. `client` serves normal commands; `blockingClient` (workers only) waits on the marker.
 */
export class RedisQueueBackend implements QueueBackend {
  /** A worker's waits for work, over its blocking connection. */
  private readonly waits?: BlockingWaits;

  constructor(
    readonly client: RedisClient,
    readonly keys: QueueKeys,
    blockingClient?: RedisClient,
  ) {
    if (blockingClient) this.waits = new BlockingWaits(blockingClient, client);
  }

  /** Overlapping adds share script calls (add-coalescer.ts). */
  private readonly adds = new AddCoalescer({
    addOne: (job) => this.addOneJob(job),
    addMany: (jobs) => this.addJobsEach(jobs),
  });

  /** On a Cluster, a job and its parent must share a hash slot (docs/scaling.md). */
  private checkParents(jobs: readonly NewJob[]): void {
    for (const job of jobs)
      assertClusterSafeParent(this.client, this.keys, job.parent?.link.queueKey);
  }

  addJob(job: NewJob, durable?: DurableOptions): Promise<AddResult> {
    try {
      this.checkParents([job]);
    } catch (error) {
      return Promise.reject(error);
    }
    // A durable add waits for its replicas on its own call (WAIT covers the connection's writes).
    return durable ? this.addDurableJob(job, durable) : this.adds.add(job);
  }

  private async addOneJob(job: NewJob): Promise<AddResult> {
    const reply = await runScript(
      this.client,
      'addJob',
      addJobKeys(this.keys),
      addJobArgs(this.keys, job),
    );
    return parseAddReply(reply, job.customId);
  }

  /** Several adds in one addJobBatch call, each job's outcome (or refusal) on its own. */
  private async addJobsEach(jobs: NewJob[]): Promise<(AddResult | Error)[]> {
    const replies = (await runScript(
      this.client,
      'addJobBatch',
      scriptKeys('addJobBatch', this.keys),
      addJobBatchArgs(this.keys, jobs),
    )) as unknown[];
    return jobs.map((job, index) => {
      try {
        return parseAddReply(replies[index], job.customId);
      } catch (error) {
        if (error instanceof Error) return error;
        throw error;
      }
    });
  }

  private async addDurableJob(job: NewJob, durable: DurableOptions): Promise<AddResult> {
    const keys = addJobKeys(this.keys);
    const args = addJobArgs(this.keys, job);
    const [reply, confirmed] = await runScriptThenWait(this.client, 'addJob', keys, args, durable);
    return { ...parseAddReply(reply, job.customId), replicasConfirmed: confirmed };
  }

  async addJobs(jobs: NewJob[], durable?: DurableOptions): Promise<AddResult[]> {
    if (jobs.length === 0) return [];
    this.checkParents(jobs);
    // One script call for the whole list: atomic (nothing runs between the adds) and one
    // invocation instead of one per job.
    const keys = scriptKeys('addJobBatch', this.keys);
    const args = addJobBatchArgs(this.keys, jobs);
    const [replies, confirmed] = durable
      ? await runScriptThenWait(this.client, 'addJobBatch', keys, args, durable)
      : [await runScript(this.client, 'addJobBatch', keys, args), undefined];
    return (replies as unknown[]).map((reply, index) => {
      const result = parseAddReply(reply, jobs[index]?.customId);
      return confirmed === undefined ? result : { ...result, replicasConfirmed: confirmed };
    });
  }

  async writeQueueMeta(fields: Record<string, string>): Promise<void> {
    await this.client.hset(this.keys.meta, fields);
  }

  async publishEvent(fields: string[], maxLength: number): Promise<void> {
    await this.client.xadd(this.keys.events, 'MAXLEN', '~', maxLength, '*', ...fields);
  }

  async fetchNextJob(identity: FetchIdentity): Promise<FetchResult> {
    const k = this.keys;
    const reply = await runScript(this.client, 'moveToActive', scriptKeys('moveToActive', k), [
      k.base,
      Date.now(),
      identityJson(identity),
    ]);
    return parseFetchReply(reply);
  }

  async finishJob(request: FinishRequest): Promise<FetchResult | undefined> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'moveToFinished',
      scriptKeys('moveToFinished', k, {
        target: request.outcome === 'completed' ? k.completed : k.failed,
        jobHash: k.job(request.jobId),
        metrics: k.metrics(request.outcome),
      }),
      [
        request.jobId,
        request.now ?? Date.now(),
        request.outcome === 'completed' ? 'returnvalue' : 'failedReason',
        request.value,
        request.outcome,
        request.fetchNext ? '1' : '0',
        k.base,
        request.token,
        JSON.stringify(request.keep),
        request.fetchNext ? identityJson(request.fetchNext) : '{}',
        request.metricsMaxDataPoints ?? '',
        recordToFlat(request.fields),
        request.attempts,
      ],
    );
    throwIfErrorCode(reply, request.jobId, `moveToFinished(${request.outcome})`);
    return Array.isArray(reply) ? parseFetchReply(reply) : undefined;
  }

  fetchJobBatch(request: BatchFetchRequest): Promise<BatchFetchResult> {
    return fetchJobBatch(this.client, this.keys, request);
  }

  completeJobBatch(request: CompleteBatchRequest): Promise<CompleteBatchResult> {
    return completeJobBatch(this.client, this.keys, request);
  }

  async retryJob(request: RetryRequest): Promise<void> {
    const k = this.keys;
    const jobHash = k.job(request.jobId);
    const fields = recordToFlat(request.fields);
    const now = Date.now();
    let reply: unknown;
    if (request.delay > 0) {
      reply = await runScript(
        this.client,
        'moveToDelayed',
        scriptKeys('moveToDelayed', k, { jobHash }),
        [request.jobId, now, request.token, request.delay, '0', fields],
      );
    } else {
      reply = await runScript(this.client, 'retryJob', scriptKeys('retryJob', k, { jobHash }), [
        k.base,
        now,
        request.lifo ? 'RPUSH' : 'LPUSH',
        request.jobId,
        request.token,
        fields,
      ]);
    }
    throwIfErrorCode(reply, request.jobId, request.delay > 0 ? 'moveToDelayed' : 'retryJob');
  }

  async postponeJob(jobId: string, token: string, dueTs: number): Promise<void> {
    const k = this.keys;
    const now = Date.now();
    const reply = await runScript(
      this.client,
      'moveToDelayed',
      scriptKeys('moveToDelayed', k, { jobHash: k.job(jobId) }),
      [jobId, now, token, Math.max(0, Math.round(dueTs - now)), '1', '[]'],
    );
    throwIfErrorCode(reply, jobId, 'moveToDelayed');
  }

  async moveActiveJobToWait(jobId: string, token: string): Promise<number> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'moveJobFromActiveToWait',
      scriptKeys('moveJobFromActiveToWait', k, { jobHash: k.job(jobId) }),
      [jobId, token],
    );
    throwIfErrorCode(reply, jobId, 'moveJobFromActiveToWait');
    return Number(reply);
  }

  async holdsLock(jobId: string, token: string): Promise<boolean> {
    return (await this.client.get(this.keys.jobLock(jobId))) === token;
  }

  noteCancelOutcome(jobId: string, outcome: CancelOutcome): Promise<void> {
    return recordCancelOutcome(this.client, this.keys, jobId, outcome);
  }

  async extendLocks(jobIds: string[], tokens: string[], duration: number): Promise<string[]> {
    if (jobIds.length === 0) return [];
    const reply = await runScript(
      this.client,
      'extendLocks',
      scriptKeys('extendLocks', this.keys),
      [this.keys.base, JSON.stringify(jobIds), JSON.stringify(tokens), duration],
    );
    return (reply as unknown[]).map(String);
  }

  async recoverStalledJobs(maxStalledCount: number, stalledInterval: number): Promise<string[]> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'moveStalledJobsToWait',
      scriptKeys('moveStalledJobsToWait', k),
      [maxStalledCount, k.base, Date.now(), stalledInterval],
    );
    return (reply as unknown[]).map(String);
  }

  async waitForMarker(timeoutSeconds: number, options: WaitOptions = {}): Promise<WaitOutcome> {
    const waits = this.blockingWaits('waitForMarker');
    const wakeKey =
      options.wakeWorker === undefined ? undefined : workerWakeKey(this.keys, options.wakeWorker);
    // One BZPOPMIN over both keys, so an idle worker sends no more commands than with the
    // marker alone.
    const keys = wakeKey ? [this.keys.marker, wakeKey] : [this.keys.marker];
    const reply = await waits.pop(keys, timeoutSeconds, options.signal, undefined, (late) => {
      if (late[0] === wakeKey) options.onWake?.(late[1]);
    });
    if (typeof reply === 'string') return reply;
    if (reply[0] === wakeKey) {
      options.onWake?.(reply[1]);
      return { wake: reply[1] };
    }
    return parseInt(reply[2], 10);
  }

  async waitForWake(
    timeoutSeconds: number,
    workerId: string,
    options: Omit<WaitOptions, 'wakeWorker'> = {},
  ): Promise<Exclude<WaitOutcome, number>> {
    const waits = this.blockingWaits('waitForWake');
    const wakeKey = workerWakeKey(this.keys, workerId);
    const reply = await waits.pop([wakeKey], timeoutSeconds, options.signal, wakeKey, (late) =>
      options.onWake?.(late[1]),
    );
    if (typeof reply === 'string') return reply;
    options.onWake?.(reply[1]);
    return { wake: reply[1] };
  }

  private blockingWaits(operation: string): BlockingWaits {
    if (!this.waits) throw new Error(`${operation} needs a blocking connection (a Worker's)`);
    return this.waits;
  }

  async updateProgress(jobId: string, progressJson: string): Promise<void> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'updateProgress',
      scriptKeys('updateProgress', k, { jobHash: k.job(jobId) }),
      [jobId, progressJson],
    );
    throwIfErrorCode(reply, jobId, 'updateProgress');
  }

  async addLog(jobId: string, line: string, keepLogs?: number): Promise<number> {
    const k = this.keys;
    const reply = await runScript(
      this.client,
      'addLog',
      [k.job(jobId), k.jobLogs(jobId)],
      [jobId, line, keepLogs ?? ''],
    );
    throwIfErrorCode(reply, jobId, 'addLog');
    return Number(reply);
  }

  async clearLogs(jobId: string, keepLogs?: number): Promise<void> {
    // One command on the logs list alone: nothing else of the job changes.
    const logs = this.keys.jobLogs(jobId);
    if (keepLogs !== undefined && keepLogs > 0) await this.client.ltrim(logs, -keepLogs, -1);
    else await this.client.del(logs);
  }

  async updateData(jobId: string, dataJson: string): Promise<void> {
    const reply = await runScript(this.client, 'updateData', [this.keys.job(jobId)], [dataJson]);
    throwIfErrorCode(reply, jobId, 'updateData');
  }

  async getMetrics(type: 'completed' | 'failed', start: number, end: number): Promise<Metrics> {
    const key = this.keys.metrics(type);
    // The three reads see the same moment, also at maxmemory
    // (engine/backend/redis/atomic-reads.ts).
    const [meta, data, count] = (await readAllAtomically(this.client, this.keys.base, [
      ['hmget', key, 'count', 'prevTS', 'prevCount'],
      ['lrange', `${key}:data`, start, end],
      ['llen', `${key}:data`],
    ])) as [(string | null)[], string[], number];
    return {
      meta: {
        count: Number(meta[0] ?? 0),
        prevTS: Number(meta[1] ?? 0),
        prevCount: Number(meta[2] ?? 0),
      },
      data: data.map(Number),
      count,
    };
  }

  async getDeduplicationJobId(deduplicationId: string): Promise<string | undefined> {
    return (await this.client.get(this.keys.deduplication(deduplicationId))) ?? undefined;
  }

  removeDeduplicationKey(deduplicationId: string): Promise<number> {
    return this.client.del(this.keys.deduplication(deduplicationId));
  }

  async removeDeduplicationKeyOf(deduplicationId: string, jobId: string): Promise<number> {
    const key = this.keys.deduplication(deduplicationId);
    return Number(await runScript(this.client, 'removeDeduplicationKey', [key], [jobId]));
  }

  async getJobHash(jobId: string): Promise<RawJobHash | undefined> {
    const hash = await this.client.hgetall(this.keys.job(jobId));
    return Object.keys(hash).length > 0 ? hash : undefined;
  }
}

function parseFetchReply(reply: unknown): FetchResult {
  const [hash, jobId, rateLimitTtl, nextDelayedTs, held] = reply as unknown[];
  if (Array.isArray(hash) && jobId) {
    return { kind: 'job', jobId: String(jobId), hash: flatToRecord(hash) };
  }
  return {
    kind: 'none',
    rateLimitTtl: Number(rateLimitTtl) || 0,
    nextDelayedTs: Number(nextDelayedTs) || 0,
    held: held === 1,
  };
}
