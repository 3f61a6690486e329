import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { RedisQueueChores } from '../backend/redis-queue-chores';
import { defaultStorage } from '../backend/default-storage';
import { checkStorageOption, type StorageConnection } from '../backend/storage';
import { DEFAULT_COUNT_STATES } from '../backend/queue-operations';
import type {
  CancelRequestOutcome,
  CleanState,
  DependencyListing,
  GroupDefaults,
  GroupInfo,
  GroupOperations,
  JobState,
  JobStateReply,
  QueueOperations,
} from '../backend/queue-operations';
import type { Metrics, QueueBackend } from '../backend/queue-backend';
import type { SchedulerStorage } from '../backend/scheduler-storage';
import { hashTaggedName } from './hash-tags';
import { DEFAULTS } from '../defaults';
import { ClosedError, ValidationError } from '../errors';
import { Job } from '../job/job';
import { validateJobOptions, type JobsOptions } from '../job/options';
import { resolveOptionAliases } from '../job/option-aliases';
import { prepareJob, withTraceCarrier, type PreparedJob } from '../job/prepare';
import type { JobTracer } from '../telemetry/job-tracer';
import { producerAttributes, producerParent, withProducerSpan } from '../telemetry/producer-spans';
import { ATTR, spanName } from '../telemetry/semconv';
import { tracerFor } from '../telemetry/tracing';
import {
  JobScheduler,
  type JobSchedulerJson,
  type JobSchedulerTemplate,
  type RepeatOptions,
} from '../scheduler/job-scheduler';
import { QueueKeys } from './keys';
import { parseQueueMeta, type QueueMeta } from './meta';
import type { QueueOptions } from './options';
import { OXMQ_LIB_NAME, OXMQ_VERSION } from '../version';

export interface BulkJob<DataType, NameType extends string> {
  name: NameType;
  data: DataType;
  opts?: JobsOptions;
}

export interface WorkerInfo {
  id?: string;
  /** The queue name (as bullmq reports it). */
  name: string;
  /** The Worker's `name` option, when it has one. */
  workerName?: string;
  rawname: string;
  addr?: string;
  age?: string;
  [field: string]: string | undefined;
}

/** Producer and admin handle of one queue. Local events: waiting, removed, cleaned, paused, resumed, error. */
/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export class Queue<DataType = any, ReturnType = any, NameType extends string = string>
  /* eslint-enable @typescript-eslint/no-explicit-any */
  extends EventEmitter
{
  readonly prefix: string;
  readonly keys: QueueKeys;
  /** @internal The storage seam: not part of the package's types (docs/engine-package.md). */
  readonly backend: QueueBackend;
  /** @internal */
  readonly ops: QueueOperations;
  /** @internal */
  readonly groups: GroupOperations;
  /** @internal */
  readonly schedulers: SchedulerStorage;
  /** @internal The Redis storage's own chores; absent with another storage. */
  readonly redis?: RedisQueueChores;
  readonly defaultJobOptions: JobsOptions;
  private readonly connection: StorageConnection;
  private readonly ready: Promise<void>;
  private readonly scheduler: JobScheduler;
  private readonly tracer: JobTracer;
  /** Set once close() (or disconnect()) has begun, as bullmq's `closing`. */
  closing: Promise<void> | undefined;
  /** Adds called and not yet answered (see trackAdd). */
  private readonly addsInFlight = new Set<Promise<unknown>>();
  /** A random id of this Queue instance, as bullmq's `token`. */
  readonly token = randomUUID();
  /** The Redis key of `type` in this queue (`toKey('wait')` is `<prefix>:<name>:wait`). */
  readonly toKey = (type: string): string => this.keys.base + type;

  /** The queue's name (with clusterHashTags, the hash-tagged one). */
  readonly name: string;

  constructor(
    name: string,
    readonly opts: QueueOptions,
  ) {
    super();
    if (!opts) throw new ValidationError('Queue needs a connection option');
    const settings = opts.settings as Record<string, unknown> | undefined;
    for (const setting of ['repeatStrategy', 'repeatKeyHashAlgorithm']) {
      if (settings?.[setting] !== undefined) {
        throw new ValidationError(
          `Queue settings.${setting} is not supported: OxMQ computes cron iterations itself and has no legacy repeatable jobs`,
        );
      }
    }
    checkStorageOption(opts.storage);
    this.prefix = opts.prefix ?? DEFAULTS.prefix;
    this.name = opts.clusterHashTags ? hashTaggedName(this.prefix, name) : name;
    this.keys = new QueueKeys(this.prefix, this.name);
    this.tracer = tracerFor(opts.telemetry);
    this.defaultJobOptions = resolveOptionAliases({ ...(opts.defaultJobOptions ?? {}) });
    if (opts.defaultJobOptions) validateJobOptions(this.defaultJobOptions);
    const storageOf = opts.storage ?? defaultStorage;
    const queue = { prefix: this.prefix, name: this.name };
    this.connection = storageOf.connect({ role: 'queue', connection: opts.connection, queue });
    this.connection.onError((error) => this.emitError(error));
    const storage = storageOf.queue({ connection: this.connection, queue });
    this.backend = storage.backend;
    this.ops = storage.ops;
    this.groups = storage.groups;
    this.schedulers = storage.schedulers;
    this.redis = storage.redis;
    this.scheduler = new JobScheduler(storage.schedulers, this, this.defaultJobOptions);
    this.ready = opts.skipMetasUpdate ? Promise.resolve() : this.writeMeta();
    this.ready.catch((error: unknown) => this.emitError(error));
  }

  /** `<prefix>:<name>`, the form a child's parent link stores. */
  get qualifiedName(): string {
    return this.keys.queueKey;
  }

  /** bullmq's name of defaultJobOptions. */
  get jobsOpts(): JobsOptions {
    return this.defaultJobOptions;
  }

  /** The meta fields this Queue writes when it starts (unless skipMetasUpdate). */
  get metaValues(): Record<string, string | number> {
    return {
      'opts.maxLenEvents': this.opts.streams?.events?.maxLen ?? DEFAULTS.maxLenEvents,
      version: `${OXMQ_LIB_NAME}:${OXMQ_VERSION}`,
    };
  }

  /**
   * @internal The storage backend of this queue (OxMQ's own class, not bullmq's). A Queue is
   * a Job's JobScope through it and `ops`, structurally: the package's types leave them out.
   */
  getBackend(): QueueBackend {
    return this.backend;
  }

  /** The job scheduler service behind upsertJobScheduler & co. */
  get jobScheduler(): Promise<JobScheduler> {
    return Promise.resolve(this.scheduler);
  }

  /** Resolves once the queue wrote its meta (or failed to). */
  async waitUntilReady(): Promise<void> {
    await this.ready;
  }

  private async writeMeta(): Promise<void> {
    const values = this.metaValues;
    await this.backend.writeQueueMeta(
      Object.fromEntries(Object.entries(values).map(([field, value]) => [field, String(value)])),
    );
  }

  private emitError(error: unknown): void {
    // An EventEmitter 'error' without listeners throws; a producer should not crash on that.
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error(`OxMQ queue ${this.name}:`, error);
  }

  private assertOpen(): void {
    if (this.closing) throw new ClosedError(`Queue ${this.name} is closed`);
  }

  private prepareJob(name: string, data: unknown, opts?: JobsOptions): PreparedJob {
    return prepareJob(name, data, opts, this.defaultJobOptions);
  }

  private toJob(
    prepared: PreparedJob,
    data: DataType,
    jobId: string,
  ): Job<DataType, ReturnType, NameType> {
    const job = new Job<DataType, ReturnType, NameType>(
      this,
      prepared.job.name as NameType,
      data,
      prepared.opts,
      jobId,
      prepared.job.timestamp,
    );
    job.traceparent = prepared.opts.traceparent;
    job.tracestate = prepared.opts.tracestate;
    job.deduplicationId = prepared.opts.deduplication?.id;
    return job;
  }

  /**
   * Adds a job. With a custom jobId that already exists nothing is written and the existing
   * job's id is returned (bullmq's duplicate rule).
   */
  add(
    name: NameType,
    data: DataType,
    opts?: JobsOptions,
  ): Promise<Job<DataType, ReturnType, NameType>> {
    return this.trackAdd(this.addNow(name, data, opts));
  }

  private async addNow(
    name: NameType,
    data: DataType,
    opts?: JobsOptions,
  ): Promise<Job<DataType, ReturnType, NameType>> {
    this.assertOpen();
    const prepared = this.prepareJob(name, data, opts);
    if (!this.tracer.isEnabled()) return this.addPrepared(prepared, data);
    const attributes = producerAttributes(this, 'add', {
      [ATTR.jobName]: name,
      [ATTR.group]: prepared.opts.group?.id,
      [ATTR.delay]: prepared.opts.delay,
    });
    return withProducerSpan(
      this.tracer,
      {
        name: spanName('send', this.name),
        kind: 'producer',
        parent: producerParent(prepared.opts),
        attributes,
      },
      async (span) => {
        const traced = withTraceCarrier(prepared, span.carrier(), true);
        const job = await this.addPrepared(traced, data);
        span.setAttributes({ [ATTR.messageId]: job.id });
        return job;
      },
    );
  }

  private async addPrepared(
    prepared: PreparedJob,
    data: DataType,
  ): Promise<Job<DataType, ReturnType, NameType>> {
    await this.ready.catch(() => undefined);
    const { jobId, replicasConfirmed } = await this.backend.addJob(prepared.job, prepared.durable);
    const job = this.toJob(prepared, data, jobId);
    if (prepared.durable) {
      job.durability = { replicas: prepared.durable.replicas, confirmed: replicasConfirmed ?? 0 };
    }
    this.emit('waiting', job);
    return job;
  }

  /**
   * Adds many jobs in one round trip. All are validated before any is written. With tracing
   * on, one producer span covers the call and every job without a context of its own carries it.
   */
  addBulk(jobs: BulkJob<DataType, NameType>[]): Promise<Job<DataType, ReturnType, NameType>[]> {
    return this.trackAdd(this.addBulkNow(jobs));
  }

  /** Remembers an add until it is answered: close() lets it finish before letting go. */
  private trackAdd<T>(write: Promise<T>): Promise<T> {
    this.addsInFlight.add(write);
    const forget = () => this.addsInFlight.delete(write);
    write.then(forget, forget);
    return write;
  }

  private async addBulkNow(
    jobs: BulkJob<DataType, NameType>[],
  ): Promise<Job<DataType, ReturnType, NameType>[]> {
    this.assertOpen();
    if (!Array.isArray(jobs))
      throw new ValidationError('addBulk expects an array of { name, data, opts }');
    const prepared = jobs.map((job) => this.prepareJob(job.name, job.data, job.opts));
    if (!this.tracer.isEnabled()) return this.addPreparedBulk(prepared, jobs);
    return withProducerSpan(
      this.tracer,
      {
        name: spanName('send', this.name),
        kind: 'producer',
        parent: 'active',
        attributes: producerAttributes(this, 'addBulk', { [ATTR.batchCount]: jobs.length }),
      },
      (span) => {
        const carrier = span.carrier();
        const traced = prepared.map((p) =>
          producerParent(p.opts) === 'active' ? withTraceCarrier(p, carrier) : p,
        );
        return this.addPreparedBulk(traced, jobs);
      },
    );
  }

  private async addPreparedBulk(
    prepared: PreparedJob[],
    jobs: BulkJob<DataType, NameType>[],
  ): Promise<Job<DataType, ReturnType, NameType>[]> {
    await this.ready.catch(() => undefined);
    // One wait covers the whole call: the most replicas and the longest timeout any job asked.
    const asked = prepared.flatMap((p) => (p.durable ? [p.durable] : []));
    const durable =
      asked.length === 0
        ? undefined
        : {
            replicas: Math.max(...asked.map((d) => d.replicas)),
            timeoutMs: Math.max(...asked.map((d) => d.timeoutMs)),
          };
    const results = await this.backend.addJobs(
      prepared.map((p) => p.job),
      durable,
    );
    return results.map((result, i) => {
      const job = this.toJob(prepared[i]!, jobs[i]!.data, result.jobId);
      const own = prepared[i]!.durable;
      if (own)
        job.durability = { replicas: own.replicas, confirmed: result.replicasConfirmed ?? 0 };
      return job;
    });
  }

  async getJob(jobId: string): Promise<Job<DataType, ReturnType, NameType> | undefined> {
    const hash = await this.backend.getJobHash(jobId);
    return hash ? Job.fromHash<DataType, ReturnType, NameType>(this, jobId, hash) : undefined;
  }

  /** Jobs of the given states; `asc` lists oldest first. */
  async getJobs(
    types: JobState | JobState[] = [...DEFAULT_COUNT_STATES],
    start = 0,
    end = -1,
    asc = false,
  ): Promise<Job<DataType, ReturnType, NameType>[]> {
    const states = normalizeTypes(types);
    const rows = await this.ops.getJobsInStates(states, start, end, asc);
    return rows.map((row) => Job.fromHash<DataType, ReturnType, NameType>(this, row.id, row.hash));
  }

  /** Counts per state, each under the name the caller used (`wait` and `waiting` both work). */
  async getJobCounts(...types: JobState[]): Promise<Record<string, number>> {
    const flat = types.flat() as JobState[];
    return this.ops.getCounts(flat.length > 0 ? [...new Set(flat)] : [...DEFAULT_COUNT_STATES]);
  }

  /** getJobCounts, also recorded as the `bullmq.queue.jobs` gauge when the telemetry option has a meter. */
  async recordJobCountsMetric(...types: JobState[]): Promise<Record<string, number>> {
    const counts = await this.getJobCounts(...types);
    const meter = this.opts.telemetry?.meter;
    if (meter) {
      const gauge = meter.createGauge('bullmq.queue.jobs', {
        description: 'Number of jobs in the queue by state',
        unit: '{jobs}',
      });
      for (const [state, count] of Object.entries(counts)) {
        gauge.record(count, { 'bullmq.queue.name': this.name, 'bullmq.queue.jobs.state': state });
      }
    }
    return counts;
  }

  getCompletedCount(): Promise<number> {
    return this.getJobCountByTypes('completed');
  }
  getFailedCount(): Promise<number> {
    return this.getJobCountByTypes('failed');
  }
  getActiveCount(): Promise<number> {
    return this.getJobCountByTypes('active');
  }
  getPrioritizedCount(): Promise<number> {
    return this.getJobCountByTypes('prioritized');
  }
  getWaitingCount(): Promise<number> {
    return this.getJobCountByTypes('waiting');
  }
  getWaitingChildrenCount(): Promise<number> {
    return this.getJobCountByTypes('waiting-children');
  }
  /** Delayed jobs; with `timestamp` (ms), only those due strictly before it. */
  getDelayedCount(timestamp?: number): Promise<number> {
    return this.ops.getDelayedCount(timestamp);
  }

  /** Waiting jobs per priority (0: the wait list), keyed by the priorities asked for. */
  getCountsPerPriority(priorities: number[]): Promise<Record<string, number>> {
    return this.ops.getCountsPerPriority(priorities);
  }

  /** Job ids in [start, end] of each state (bullmq's default end is 1), each id once. */
  getRanges(types: JobState | JobState[], start = 0, end = 1, asc = false): Promise<string[]> {
    return this.ops.getRanges(Array.isArray(types) ? types : [types], start, end, asc);
  }

  /**
   * One page of a parent's pending or processed children: their full keys (`v`: a processed
   * child's return value), the children that still exist as JobJson, and the total.
   */
  getDependencies(
    parentId: string,
    type: 'processed' | 'pending',
    start: number,
    end: number,
  ): Promise<DependencyListing> {
    return this.ops.getDependencyListing(parentId, type, start, end);
  }

  async getJobCountByTypes(...types: JobState[]): Promise<number> {
    const counts = await this.getJobCounts(...types);
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async count(): Promise<number> {
    return this.getJobCountByTypes(
      'waiting',
      'paused',
      'delayed',
      'prioritized',
      'waiting-children',
    );
  }

  getJobState(jobId: string): Promise<JobStateReply> {
    return this.ops.getState(jobId);
  }

  getJobLogs(
    jobId: string,
    start = 0,
    end = -1,
    asc = true,
  ): Promise<{ logs: string[]; count: number }> {
    return this.ops.getLogs(jobId, start, end, asc);
  }

  getWaiting(start = 0, end = -1) {
    return this.getJobs(['waiting'], start, end, true);
  }
  getActive(start = 0, end = -1) {
    return this.getJobs(['active'], start, end, true);
  }
  getDelayed(start = 0, end = -1) {
    return this.getJobs(['delayed'], start, end, true);
  }
  getPrioritized(start = 0, end = -1) {
    return this.getJobs(['prioritized'], start, end, true);
  }
  getCompleted(start = 0, end = -1) {
    return this.getJobs(['completed'], start, end, false);
  }
  getFailed(start = 0, end = -1) {
    return this.getJobs(['failed'], start, end, false);
  }
  getWaitingChildren(start = 0, end = -1) {
    return this.getJobs(['waiting-children'], start, end, true);
  }

  /**
   * The queue's state in Prometheus text: what bullmq 6.7's method writes for the same state
   * (job counts per state, completed and failed counters; `globalVariables` become labels), then
   * OxMQ's `oxmq_queue_*` gauges (docs/metrics.md). One round trip.
   */
  async exportPrometheusMetrics(globalVariables?: Record<string, string>): Promise<string> {
    // The export reads a snapshot of the queue's Redis keys: a chore of the Redis storage.
    if (!this.redis) {
      throw new ValidationError('exportPrometheusMetrics reads Redis: this queue stores elsewhere');
    }
    return this.redis.exportPrometheusMetrics(globalVariables);
  }

  /** Per-minute counts of completed or failed jobs (workers need the `metrics` option). */
  getMetrics(type: 'completed' | 'failed', start = 0, end = -1): Promise<Metrics> {
    return this.backend.getMetrics(type, start, end);
  }

  /** The id of the job that owns deduplication window `deduplicationId`; null when none is open. */
  async getDeduplicationJobId(deduplicationId: string): Promise<string | null> {
    return (await this.backend.getDeduplicationJobId(deduplicationId)) ?? null;
  }

  /** @deprecated bullmq's old name of getDeduplicationJobId. */
  getDebounceJobId(id: string): Promise<string | null> {
    return this.getDeduplicationJobId(id);
  }

  /** @deprecated bullmq's old name of removeDeduplicationKey. */
  removeDebounceKey(id: string): Promise<number> {
    return this.removeDeduplicationKey(id);
  }

  /** Closes a deduplication window now, whoever owns it; 1 if one was open. */
  removeDeduplicationKey(deduplicationId: string): Promise<number> {
    return this.backend.removeDeduplicationKey(deduplicationId);
  }

  /**
   * OxMQ: cancels a running job, whichever OxMQ worker runs it, in any process. The worker is
   * woken through Redis at once (not at its next heartbeat) and aborts the job's AbortSignal with
   * `reason`. Unlike a local worker.cancelJob, the cancel ends the job: when the processor
   * rejects, the job fails with `Cancelled: <reason>` and is not retried, whatever attempts
   * remain; a processor that returns anyway completes its job (the timeline says the cancel was
   * ignored). `force` kills the sandbox child running the job, for a sandboxed processor that
   * ignores its signal; the attempt then fails as cancelled. Resolves with `requested`,
   * `not-active` (nothing to cancel) or `held-by-bullmq` (active, but no live OxMQ worker holds
   * it: a bullmq worker has no way to be reached).
   */
  async cancelJob(
    jobId: string,
    reason = '',
    opts: { force?: boolean } = {},
  ): Promise<CancelRequestOutcome> {
    this.assertOpen();
    return this.ops.requestJobCancel(jobId, String(reason), { force: opts.force === true });
  }

  /**
   * Creates or replaces job scheduler `id` (recurring jobs, every ms or a cron pattern) and
   * returns its pending iteration. See engine/scheduler/job-scheduler.ts for the rules.
   */
  async upsertJobScheduler(
    id: string,
    repeatOpts: RepeatOptions,
    template?: JobSchedulerTemplate<DataType, NameType>,
  ): Promise<Job<DataType, ReturnType, NameType>> {
    this.assertOpen();
    await this.ready.catch(() => undefined);
    return this.scheduler.upsertJobScheduler<DataType, ReturnType, NameType>(
      id,
      repeatOpts,
      template,
    );
  }

  getJobScheduler(id: string): Promise<JobSchedulerJson<DataType> | undefined> {
    return this.scheduler.getJobScheduler<DataType>(id);
  }

  /** Schedulers by next run; `asc` lists the soonest first. */
  getJobSchedulers(start = 0, end = -1, asc = false): Promise<JobSchedulerJson<DataType>[]> {
    return this.scheduler.getJobSchedulers<DataType>(start, end, asc);
  }

  getJobSchedulersCount(): Promise<number> {
    return this.scheduler.getJobSchedulersCount();
  }

  /** Removes the scheduler and its not-yet-started iteration; false if it did not exist. */
  removeJobScheduler(id: string): Promise<boolean> {
    return this.scheduler.removeJobScheduler(id);
  }

  /**
   * OxMQ extension: pauses job scheduler `id`; its pending iteration is taken out and none is
   * created until resumeJobScheduler (an upsert resumes it too). False if it does not exist.
   */
  pauseJobScheduler(id: string): Promise<boolean> {
    return this.scheduler.pauseJobScheduler(id);
  }

  /**
   * OxMQ extension: resumes a paused job scheduler from its stored definition; returns its new
   * pending iteration. Throws JobSchedulerNotFoundError, JobSchedulerPausedStateError (it is not
   * paused) or ValidationError (its definition no longer holds, e.g. an endDate now past).
   */
  async resumeJobScheduler(id: string): Promise<Job<DataType, ReturnType, NameType>> {
    this.assertOpen();
    return (await this.scheduler.resumeJobScheduler(id)) as Job<DataType, ReturnType, NameType>;
  }

  /** OxMQ extension: true when job scheduler `id` exists and is paused. */
  isJobSchedulerPaused(id: string): Promise<boolean> {
    return this.scheduler.isJobSchedulerPaused(id);
  }

  async pause(): Promise<void> {
    await this.ops.pause();
    this.emit('paused');
  }

  async resume(): Promise<void> {
    await this.ops.resume();
    this.emit('resumed');
  }

  isPaused(): Promise<boolean> {
    return this.ops.isPaused();
  }

  /** Removes every waiting (and, with delayed = true, delayed) job, in bounded chunks. */
  async drain(delayed = false): Promise<void> {
    await this.ops.drain(delayed);
  }

  /** Removes up to `limit` jobs of `type` older than `grace` ms (0 = no limit); returns their ids. */
  async clean(
    grace: number,
    limit: number,
    type: CleanState | 'waiting' = 'completed',
  ): Promise<string[]> {
    const state: CleanState = type === 'waiting' ? 'wait' : type;
    const ids = await this.ops.clean(grace, limit, state);
    // bullmq reports the state it cleaned, `waiting` as `wait`.
    this.emit('cleaned', ids, state);
    return ids;
  }

  /** Deletes the whole queue in chunks of `count` jobs. Needs the queue paused (this pauses it). */
  async obliterate(opts: { force?: boolean; count?: number } = {}): Promise<void> {
    await this.pause();
    await this.ops.obliterate({
      force: opts.force ?? false,
      count: opts.count ?? DEFAULTS.chunkSize,
    });
  }

  /** 1 when removed, 0 when a worker holds the job's lock. */
  async remove(jobId: string, opts: { removeChildren?: boolean } = {}): Promise<number> {
    const removed = await this.ops.removeJob(jobId, opts.removeChildren ?? true);
    if (removed === 1) this.emit('removed', jobId);
    return removed;
  }

  /** Moves failed (or completed) jobs back to wait, `count` (at most DEFAULTS.chunkSize) per round trip. */
  async retryJobs(
    opts: { count?: number; state?: 'failed' | 'completed'; timestamp?: number } = {},
  ): Promise<void> {
    await this.ops.retryJobs(
      opts.state ?? 'failed',
      opts.count ?? DEFAULTS.chunkSize,
      opts.timestamp ?? Date.now(),
    );
  }

  /** Moves every delayed job to wait, `count` (at most DEFAULTS.chunkSize) per round trip. */
  async promoteJobs(opts: { count?: number } = {}): Promise<void> {
    await this.ops.promoteJobs(opts.count ?? DEFAULTS.chunkSize);
  }

  async setGlobalConcurrency(concurrency: number): Promise<void> {
    if (!Number.isInteger(concurrency) || concurrency <= 0) {
      throw new ValidationError('global concurrency must be a positive integer');
    }
    await this.ops.setGlobalConcurrency(concurrency);
  }

  async removeGlobalConcurrency(): Promise<void> {
    await this.ops.setGlobalConcurrency(undefined);
  }

  async getGlobalConcurrency(): Promise<number | null> {
    const meta = await this.ops.getMeta();
    return meta.concurrency === undefined ? null : Number(meta.concurrency);
  }

  /** Queue-wide limit: at most `max` job starts per `duration` ms, across every worker. */
  async setGlobalRateLimit(max: number, duration: number): Promise<void> {
    if (!Number.isInteger(max) || max <= 0)
      throw new ValidationError('rate limit max must be a positive integer');
    if (!Number.isFinite(duration) || duration <= 0)
      throw new ValidationError('rate limit duration must be a positive number of ms');
    await this.ops.setGlobalRateLimit({ max, duration });
  }

  async removeGlobalRateLimit(): Promise<void> {
    await this.ops.setGlobalRateLimit(undefined);
  }

  async getGlobalRateLimit(): Promise<{ max: number; duration: number } | null> {
    const meta = await this.ops.getMeta();
    return meta.max === undefined
      ? null
      : { max: Number(meta.max), duration: Number(meta.duration) };
  }

  /** No worker starts a job of this queue for `ms` (processors then throw RateLimitError). */
  async rateLimit(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms <= 0)
      throw new ValidationError('rateLimit needs a positive number of ms');
    await this.ops.rateLimit(Math.round(ms));
  }

  getRateLimitTtl(maxJobs?: number): Promise<number> {
    return this.ops.getRateLimitTtl(maxJobs);
  }

  /** Ends the current rate-limit window (or a manual rateLimit) now; 1 if there was one. */
  removeRateLimitKey(): Promise<number> {
    return this.ops.removeRateLimitKey();
  }

  /** True when a global concurrency is set and that many jobs are active. */
  isMaxed(): Promise<boolean> {
    return this.ops.isMaxed();
  }

  /** Trims the events stream to about `maxLength` entries; returns how many were dropped. */
  trimEvents(maxLength: number): Promise<number> {
    return this.ops.trimEvents(maxLength);
  }

  /** Deletes the `priority` key bullmq versions before 5 wrote; 1 if it existed. */
  async removeDeprecatedPriorityKey(): Promise<number> {
    // Only Redis can hold what bullmq before 5 wrote.
    return (await this.redis?.removeDeprecatedPriorityKey()) ?? 0;
  }

  /**
   * Deletes job keys that no state holds any more (left by crashes of old bullmq versions):
   * scans `count` keys per step, removes at most `limit` jobs (0: all). Returns how many.
   */
  async removeOrphanedJobs(count: number = DEFAULTS.chunkSize, limit = 0): Promise<number> {
    // Another storage keeps no job outside a state: there is nothing to find.
    return (await this.redis?.removeOrphanedJobs(count, limit)) ?? 0;
  }

  /** Sets a job's progress from outside a worker: the stream's `progress` event and a local one. */
  async updateJobProgress(jobId: string, progress: number | object): Promise<void> {
    await this.backend.updateProgress(jobId, JSON.stringify(progress));
    this.emit('progress', jobId, progress);
  }

  /** Appends a log line to a job, keeping the newest `keepLogs` lines when given. */
  addJobLog(jobId: string, logRow: string, keepLogs?: number): Promise<number> {
    return this.backend.addLog(jobId, String(logRow), keepLogs);
  }

  // ---- tenant groups (OxMQ extension; jobs join one with the `group: { id }` option) ----

  /** At most `concurrency` jobs of group `groupId` run at once, across every worker. */
  async setGroupConcurrency(groupId: string, concurrency: number): Promise<void> {
    if (concurrency === undefined) throw new ValidationError('group concurrency is required');
    await this.groups.setGroupConcurrency(groupId, concurrency);
  }

  /** The group falls back to the queue-wide default concurrency (if any). */
  removeGroupConcurrency(groupId: string): Promise<void> {
    return this.groups.setGroupConcurrency(groupId, undefined);
  }

  /** At most `max` job starts of group `groupId` in any `duration` ms, across every worker. */
  setGroupRateLimit(groupId: string, max: number, duration: number): Promise<void> {
    return this.groups.setGroupRateLimit(groupId, { max, duration });
  }

  /** The group falls back to the queue-wide default rate limit (if any). */
  removeGroupRateLimit(groupId: string): Promise<void> {
    return this.groups.setGroupRateLimit(groupId, undefined);
  }

  /**
   * Limits of every group that has none of its own. Given fields are set, null clears one,
   * omitted ones stay as they are.
   */
  setGroupDefaults(defaults: GroupDefaults): Promise<void> {
    return this.groups.setGroupDefaults(defaults);
  }

  getGroupDefaults(): Promise<{
    concurrency: number | null;
    rateLimit: { max: number; duration: number } | null;
  }> {
    return this.groups.getGroupDefaults();
  }

  /** No job of the group starts until resumeGroup; its running jobs go on. */
  pauseGroup(groupId: string): Promise<void> {
    return this.groups.setGroupPaused(groupId, true);
  }

  resumeGroup(groupId: string): Promise<void> {
    return this.groups.setGroupPaused(groupId, false);
  }

  async getGroup(groupId: string): Promise<GroupInfo> {
    const [group] = await this.groups.getGroups([groupId]);
    return group!;
  }

  /**
   * One page of every group ever used or configured, in id order: pass the returned cursor back
   * for the next page ('' starts; '' is returned after the last page).
   */
  async getGroups(
    opts: { cursor?: string; count?: number } = {},
  ): Promise<{ groups: GroupInfo[]; cursor: string }> {
    const page = await this.groups.listGroupIds(opts.cursor ?? '', opts.count ?? 100);
    return { groups: await this.groups.getGroups(page.ids), cursor: page.cursor };
  }

  /** The group's waiting jobs, next to run first ([start, end] of its line). */
  async getGroupJobs(
    groupId: string,
    start = 0,
    end = -1,
  ): Promise<Job<DataType, ReturnType, NameType>[]> {
    const rows = await this.groups.getGroupJobs(groupId, start, end);
    return rows.map((row) => Job.fromHash<DataType, ReturnType, NameType>(this, row.id, row.hash));
  }

  /** Workers connected to this queue (OxMQ's and bullmq's), from their blocking connections' names. */
  async getWorkers(): Promise<WorkerInfo[]> {
    // Named connections are Redis's: another storage lists none.
    const clients = (await this.redis?.getWorkerClients()) ?? [];
    return clients.map((client) => {
      const rawname = client.name ?? '';
      const marker = rawname.indexOf(':w:');
      // `name` is the queue name, as bullmq reports it; the worker's own name is `workerName`.
      const workerName = marker >= 0 ? rawname.slice(marker + 3) : undefined;
      return { ...client, rawname, name: this.name, workerName };
    });
  }

  async getWorkersCount(): Promise<number> {
    return (await this.getWorkers()).length;
  }

  /** QueueEvents connected to this queue, from their connections' names. */
  async getQueueEvents(): Promise<WorkerInfo[]> {
    const clients = (await this.redis?.getQueueEventsClients()) ?? [];
    return clients.map((client) => ({ ...client, rawname: client.name ?? '', name: this.name }));
  }

  /** The meta hash with bullmq's parsing: numbers for the limits, `paused` a boolean. */
  async getMeta(): Promise<QueueMeta> {
    return parseQueueMeta(await this.ops.getMeta());
  }

  /** `<library>:<version>` of the last Queue that wrote the meta; null when none did. */
  async getVersion(): Promise<string | null> {
    return (await this.ops.getMeta()).version ?? null;
  }

  /** Drops the connection at once, without waiting for pending commands. */
  async disconnect(): Promise<void> {
    this.closing ??= this.connection.disconnect();
    await this.closing;
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.race([this.ready.catch(() => undefined), this.connection.settled()]);
      // Adds accepted before close() are written before the connection goes, awaited or not.
      await Promise.race([Promise.allSettled(this.addsInFlight), this.connection.lost()]);
      await this.connection.close();
    })();
    await this.closing;
  }
}

function normalizeTypes(types: JobState | JobState[]): JobState[] {
  const list = Array.isArray(types) ? types : [types];
  return list.map((type) => (type === 'wait' ? 'waiting' : type));
}
