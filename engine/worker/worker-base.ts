/**
 * What a Worker (engine/worker/worker.ts) and a BatchWorker (engine/worker/batch-worker.ts) share:
 * the connections, the public API both expose (events, run, pause / resume, close, closeGracefully,
 * concurrency, cancellation, manual processing), the background services behind one lifecycle
 * (worker-services.ts) and the slot loop (slot-loop.ts), which runs the strategy the subclass gives
 * it: single jobs or batches.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { RedisClient } from '../backend/redis/connection';
import { defaultStorage } from '../backend/default-storage';
import type { FetchIdentity } from '../backend/queue-backend';
import type { QueueBackend } from '../backend/queue-backend';
import type { QueueOperations } from '../backend/queue-operations';
import type { TimingHistoryStore } from '../backend/timing-history';
import type { WorkerRegistry } from '../backend/worker-registry';
import type { RedisQueueChores } from '../backend/redis-queue-chores';
import type { StorageConnection } from '../backend/storage';
import { DEFAULTS } from '../defaults';
import { ClosedError, RateLimitError, ValidationError } from '../errors';
import { Job } from '../job/job';
import { RUNNING_JOB_SIGNAL, type JobFinishingContext } from '../job/scope';
import { JobScheduler } from '../scheduler/job-scheduler';
import { hashTaggedName } from '../queue/hash-tags';
import { QueueKeys } from '../queue/keys';
import { LockRenewer } from '../maintenance/lock-renewer';
import { StalledChecker } from '../maintenance/stalled-checker';
import { carrierOfJob, JobAttempts } from '../telemetry/job-attempts';
import { tracerFor } from '../telemetry/tracing';
import { WorkerMetrics } from '../telemetry/worker-metrics';
import type { WorkerOptions } from './options';
import { abortableDelay } from './abortable-delay';
import {
  completionsService,
  heartbeatService,
  timingHistoryService,
  lockRenewerService,
  markerWaiterService,
  SERVICE,
  stalledCheckerService,
} from './background-services';
import { CompletionBatcher } from './completion-batcher';
import { GracefulClose, type GracefulCloseReport } from './graceful-close';
import { HEARTBEAT_MAX_LISTED_JOBS, WorkerHeartbeat } from './heartbeat';
import { DEFAULT_HISTORY_RETENTION } from '../history/history-keys';
import { TimingRecorder } from '../history/timing-recorder';
import type { CancelRequest } from './heartbeat-keys';
import { RunningJobs } from './running-jobs';
import { JobOutcomes } from './job-outcomes';
import { MarkerWaiter } from './marker-waiter';
import { fetchForManualProcessing } from './next-job';
import { RateLimitGate } from './rate-limit-gate';
import type { SlotContext } from './slot-context';
import { SlotLoop } from './slot-loop';
import type { SlotStrategy } from './slot-strategy';
import { isConnectionClosedError } from './worker-connections';
import type { GetNextJobOptions } from './worker-listener';
import { WorkerServices } from './worker-services';

export abstract class WorkerBase<
  DataType,
  ReturnType,
  NameType extends string,
  Work extends object,
> extends EventEmitter {
  readonly prefix: string;
  readonly keys: QueueKeys;
  /** @internal The storage seam: not part of the package's types (docs/engine-package.md). */
  readonly backend: QueueBackend;
  /** @internal */
  readonly ops: QueueOperations;
  /** @internal The queue's live workers, this one's heartbeat among them. */
  readonly workers: WorkerRegistry;
  readonly id = randomUUID();
  /** What jobs of this worker finish with when code finishes them (manual processing). */
  readonly finishing: JobFinishingContext;
  private slotLimit: number;
  private readonly settings: Required<
    Pick<
      WorkerOptions,
      | 'lockDuration'
      | 'lockRenewTime'
      | 'stalledInterval'
      | 'maxStalledCount'
      | 'drainDelay'
      | 'maximumRateLimitDelay'
    >
  >;
  /** The worker's connection to its storage (for Redis: its commands' and its blocking one). */
  private readonly connection: StorageConnection;
  /** The Redis storage's chores, for bullmq's `client` getter; absent with another storage. */
  private readonly redisChores?: RedisQueueChores;
  private readonly lockRenewer: LockRenewer;
  private readonly scheduler: JobScheduler;
  /** close(true) and closeGracefully's deadline abort it; each job's signal follows it. */
  protected readonly abort = new AbortController();
  private readonly runningJobs = new RunningJobs();
  /**
   * JobScope's lookup of `job.signal` for a job this worker runs one at a time: its running-job
   * record's, while that record is the one of the job's own fetch (same token).
   */
  readonly [RUNNING_JOB_SIGNAL] = (
    jobId: string,
    token: string | undefined,
  ): AbortSignal | undefined => {
    const runningJob = this.runningJobs.get(jobId);
    return runningJob && runningJob.token === token ? runningJob.jobSignal() : undefined;
  };
  /** How long closing waits for running jobs; closeGracefully's deadline and report. */
  private readonly graceful: GracefulClose;
  private tokenCounter = 0;
  private running?: Promise<void>;
  private closing?: Promise<void>;
  private finished?: Promise<void>;
  private paused = false;
  /** Quieted through Redis (engine/admin/redis/worker-heartbeats.ts): no new jobs until resumed. */
  private quiet = false;
  /** Set first thing in close(), before any await, so every loop sees it at once. */
  private stopping = false;
  private readonly rateLimitGate = new RateLimitGate();
  private readonly markerWaiter: MarkerWaiter;
  /** Spans and metrics of the attempts this worker runs (engine/telemetry/). */
  private readonly attempts: JobAttempts;
  /** The timing history this worker adds to (docs/metrics.md), unless turned off. */
  private readonly timingHistory?: TimingRecorder;
  private slotsCounted = false;
  /** Every background service, started by run() and stopped, all of them, by close(). */
  protected readonly services: WorkerServices;
  /** What the strategies and outcomes use of this worker. */
  protected readonly slotContext: SlotContext;
  protected readonly outcomes: JobOutcomes<DataType, ReturnType, NameType>;
  /** Set by the subclass (useStrategy); undefined for manual processing. */
  private loop?: SlotLoop<Work>;

  /** Options a subclass adds to WorkerOptions (validation refuses any other unknown one). */
  static readonly extraOptionKeys: readonly string[] = [];

  /** The queue's name (with clusterHashTags, the hash-tagged one). */
  readonly name: string;

  constructor(
    name: string,
    readonly opts: WorkerOptions,
  ) {
    // The subclass validated `opts` (validateWorkerOptions) before calling this constructor.
    super();
    this.prefix = opts.prefix ?? DEFAULTS.prefix;
    this.name = opts.clusterHashTags ? hashTaggedName(this.prefix, name) : name;
    this.keys = new QueueKeys(this.prefix, this.name);
    this.slotLimit = opts.concurrency ?? DEFAULTS.worker.concurrency;
    const lockDuration = opts.lockDuration ?? DEFAULTS.worker.lockDuration;
    this.settings = {
      lockDuration,
      lockRenewTime: opts.lockRenewTime ?? lockDuration / 2,
      stalledInterval: opts.stalledInterval ?? DEFAULTS.worker.stalledInterval,
      maxStalledCount: opts.maxStalledCount ?? DEFAULTS.worker.maxStalledCount,
      drainDelay: opts.drainDelay ?? DEFAULTS.worker.drainDelay,
      maximumRateLimitDelay: opts.maximumRateLimitDelay ?? DEFAULTS.worker.maximumRateLimitDelay,
    };

    const storageOf = opts.storage ?? defaultStorage;
    const queue = { prefix: this.prefix, name: this.name };
    this.connection = storageOf.connect({
      role: 'worker',
      connection: opts.connection,
      queue,
      workerName: opts.name,
    });
    this.connection.onError((error) => this.emitError(error));
    const storage = storageOf.queue({ connection: this.connection, queue });
    this.redisChores = storage.redis;
    this.backend = storage.backend;
    this.ops = storage.ops;
    this.workers = storage.workers;
    this.timingHistory = this.makeTimingRecorder(storage.history);
    this.attempts = new JobAttempts(
      tracerFor(opts.telemetry),
      new WorkerMetrics(this.prefix, this.name, opts.telemetry?.meter),
      { name: this.name, prefix: this.prefix, onError: (error) => this.emitError(error) },
      this.timingHistory,
    );
    this.markerWaiter = new MarkerWaiter(
      this.backend,
      this.settings.drainDelay,
      () => this.stopping || this.paused || this.quiet,
    );
    this.scheduler = new JobScheduler(storage.schedulers, this);
    this.finishing = {
      removeOnComplete: opts.removeOnComplete,
      removeOnFail: opts.removeOnFail,
      metricsMaxDataPoints: opts.metrics?.maxDataPoints,
      backoffStrategy: opts.settings?.backoffStrategy,
      fetchIdentity: (token) => this.fetchNextIdentity(token),
    };
    const completions = new CompletionBatcher(
      this.backend,
      () => this.opts.metrics?.maxDataPoints,
      this.concurrency,
    );
    this.lockRenewer = new LockRenewer(
      this.backend,
      { lockDuration, lockRenewTime: this.settings.lockRenewTime },
      (jobId) => {
        this.attempts.metrics.lockRenewalFailed(1);
        this.emit('lockRenewalFailed', [jobId]);
      },
      (error) => this.emitError(error),
      (jobIds) => this.emit('locksRenewed', { count: jobIds.length, jobIds }),
    );
    this.graceful = new GracefulClose({
      backend: this.backend,
      lost: () => this.connection.lost(),
      runningJobs: this.runningJobs,
      lockRenewer: this.lockRenewer,
      abort: this.abort,
      emitError: (error) => this.emitError(error),
    });
    this.slotContext = this.makeSlotContext(completions);
    this.outcomes = new JobOutcomes(this.slotContext);

    this.services = new WorkerServices((error) => this.emitError(error));
    this.registerServices(completions);

    // Cancelling the worker's signal (close(true), closeGracefully's deadline) cancels each job's.
    this.abort.signal.addEventListener('abort', () => this.runningJobs.cancelAll(), { once: true });
    // Like bullmq: 'ready' once both connections are, whether or not the worker runs.
    this.waitUntilReady().then(
      () => this.emit('ready'),
      () => undefined,
    );
  }

  private makeSlotContext(completions: CompletionBatcher): SlotContext {
    return {
      scope: this,
      backend: this.backend,
      keys: this.keys,
      opts: this.opts,
      attempts: this.attempts,
      lockRenewer: this.lockRenewer,
      runningJobs: this.runningJobs,
      scheduler: this.scheduler,
      rateLimit: this.rateLimitGate,
      completions,
      abortSignal: this.abort.signal,
      emit: (event, ...args) => void this.emit(event, ...args),
      emitError: (error) => this.emitError(error),
      nextToken: () => this.nextToken(),
      identity: (token) => this.identity(token),
      fetchNextIdentity: (token) => this.fetchNextIdentity(token),
      gracefulDeadlinePassed: () => this.graceful.deadlinePassed(),
      giveBack: (runningJob) => this.graceful.giveBack(runningJob),
      endRunning: (runningJob) => {
        if (runningJob.phase !== 'returned') {
          this.lockRenewer.untrack(runningJob.jobId);
          this.graceful.jobFinished();
        }
        this.runningJobs.end(runningJob);
      },
    };
  }

  /**
   * The services in start order; close() stops them in reverse: the sandbox (a subclass adds
   * it last) first, the heartbeat's record last, once nothing runs any more.
   */
  private registerServices(completions: CompletionBatcher): void {
    // First in, so stopped last: the completions flushed on close are counted in it.
    if (this.timingHistory) {
      this.services.add(timingHistoryService(this.timingHistory, () => this.connection.lost()));
    }
    const heartbeat = this.makeHeartbeat(
      this.opts.heartbeatInterval ?? DEFAULTS.worker.heartbeatInterval,
    );
    if (heartbeat) this.services.add(heartbeatService(heartbeat, () => this.connection.lost()));
    if (!this.opts.skipStalledCheck) {
      this.services.add(stalledCheckerService(this.makeStalledChecker()));
    }
    if (!this.opts.skipLockRenewal) this.services.add(lockRenewerService(this.lockRenewer));
    this.services.add(markerWaiterService(this.markerWaiter));
    this.services.add(completionsService(completions));
  }

  /** The timing history this worker adds to, in its storage (unless turned off). */
  private makeTimingRecorder(store: TimingHistoryStore): TimingRecorder | undefined {
    const option = this.opts.timingHistory ?? true;
    if (option === false) return undefined;
    const given = option === true ? {} : option;
    return new TimingRecorder(store, {
      flushIntervalMs: given.flushInterval ?? DEFAULTS.worker.timingHistoryFlush,
      retention: {
        minutesKeptMs: given.minutesKept ?? DEFAULT_HISTORY_RETENTION.minutesKeptMs,
        hoursKeptMs: given.hoursKept ?? DEFAULT_HISTORY_RETENTION.hoursKeptMs,
      },
      onError: (error) => this.emitError(error),
    });
  }

  private makeStalledChecker(): StalledChecker {
    return new StalledChecker(
      this.backend,
      {
        maxStalledCount: this.settings.maxStalledCount,
        stalledInterval: this.settings.stalledInterval,
      },
      (ids) => {
        this.attempts.metrics.jobsStalled(ids.length);
        ids.forEach((id) => this.emit('stalled', id, 'active'));
        void this.traceStalls(ids);
      },
      (error) => this.emitError(error),
    );
  }

  private makeHeartbeat(intervalMs: number): WorkerHeartbeat | undefined {
    if (intervalMs === 0) return undefined;
    const heartbeat = new WorkerHeartbeat(
      this.workers,
      {
        workerId: this.id,
        workerName: this.opts.name,
        queueName: this.name,
        prefix: this.prefix,
        intervalMs,
        limiter: this.opts.limiter,
      },
      {
        snapshot: () => ({
          concurrency: this.concurrency,
          jobIds: this.runningJobs.ids(HEARTBEAT_MAX_LISTED_JOBS),
          active: this.runningJobs.size,
          quiet: this.quiet,
          paused: this.paused,
          canForceStop: this.forceStop !== undefined,
        }),
        cancel: (jobId, request) => this.cancelFromRedis(jobId, request),
        setQuiet: (quiet) => this.setQuiet(quiet),
        onError: (error) => this.emitError(error),
      },
    );
    // Cancel requests wake the worker through its wake key; it then beats at once to take them.
    this.markerWaiter.useWake({
      workerId: this.id,
      onWake: () => heartbeat.beatNow(),
      hasJobs: () => this.runningJobs.size > 0,
    });
    this.on('completed', () => (heartbeat.completed += 1));
    this.on('failed', () => (heartbeat.failed += 1));
    this.on('lockRenewalFailed', (ids: string[]) => (heartbeat.lockRenewalFailures += ids.length));
    return heartbeat;
  }

  /**
   * Gives the worker what its slots run and starts it unless `autorun` is false. Called once,
   * at the end of the subclass's constructor; a worker without a strategy processes manually.
   */
  protected useStrategy(strategy: SlotStrategy<Work>, autorun: boolean): void {
    this.loop = new SlotLoop(
      {
        isStopping: () => this.stopping,
        isHeld: () => this.paused || this.quiet,
        concurrency: () => this.concurrency,
        nextToken: () => this.nextToken(),
        onDrained: () => this.emit('drained'),
        onError: (error) => this.emitError(error),
        runRetryDelay: this.opts.runRetryDelay ?? DEFAULTS.worker.runRetryDelay,
        maximumRateLimitDelay: this.settings.maximumRateLimitDelay,
      },
      strategy,
      this.rateLimitGate,
      this.markerWaiter,
    );
    if (autorun) this.run().catch((error: unknown) => this.emitError(error));
  }

  /**
   * Quiet: no new job is fetched, running ones finish (a command left in Redis by quietWorker,
   * read on the next heartbeat). Apart from pause(), so a remote resume never undoes a local pause.
   */
  private setQuiet(quiet: boolean): void {
    this.quiet = quiet;
    if (quiet) this.markerWaiter.interrupt();
    else this.wakeUp();
  }

  /** `<prefix>:<queue name>`, as bullmq names it. */
  get qualifiedName(): string {
    return `${this.prefix}:${this.name}`;
  }

  /** The Redis key of one of this queue's structures (`<prefix>:<queue>:<type>`). */
  toKey(type: string): string {
    return `${this.qualifiedName}:${type}`;
  }

  /** @internal The storage seam this worker uses (bullmq's getBackend; OxMQ's own interface). */
  getBackend(): QueueBackend {
    return this.backend;
  }

  /** bullmq's bounds of one blocking wait for work, in seconds. */
  get minimumBlockTimeout(): number {
    return 0.001;
  }

  get maximumBlockTimeout(): number {
    return DEFAULTS.worker.maxBlockSeconds;
  }

  /**
   * Waits `milliseconds` (default: forever) or until `abortController` aborts, whichever is
   * first; bullmq's helper, kept for code that calls it.
   */
  delay(milliseconds?: number, abortController?: AbortController): Promise<void> {
    return abortableDelay(milliseconds, abortController?.signal);
  }

  /** bullmq's static: the error a processor throws after a manual rate limit. */
  static RateLimitError(): Error {
    return new RateLimitError();
  }

  /** Jobs processed at once. */
  get concurrency(): number {
    return this.slotLimit;
  }

  /**
   * Changes the concurrency of a live worker, as bullmq allows: more slots start fetching at once;
   * with fewer, running jobs finish and no new one starts until the count is under the limit.
   */
  set concurrency(value: number) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new ValidationError('concurrency must be a positive integer');
    }
    if (this.slotsCounted) {
      this.attempts.metrics.slotsClosed(this.slotLimit);
      this.attempts.metrics.slotsOpened(value);
    }
    this.slotLimit = value;
    this.wakeUp();
  }

  get emitter(): EventEmitter {
    return this;
  }

  /**
   * The non-blocking Redis client (exposed for tests and tools; the hot path goes through
   * backend). Only the Redis storage has one.
   */
  get client(): RedisClient {
    if (!this.redisChores) {
      throw new ValidationError(
        `Worker ${this.name} has no Redis client: its storage is not Redis`,
      );
    }
    return this.redisChores.client;
  }

  isRunning(): boolean {
    return this.running !== undefined && !this.stopping;
  }

  isPaused(): boolean {
    return this.paused;
  }

  async waitUntilReady(): Promise<void> {
    await this.connection.ready();
  }

  protected emitError(error: unknown): void {
    if (this.stopping && isConnectionClosedError(error)) return;
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error(`OxMQ worker ${this.name}:`, error);
  }

  private nextToken(): string {
    return `${this.id}:${this.tokenCounter++}`;
  }

  private identity(token: string): FetchIdentity {
    return {
      token,
      lockDuration: this.settings.lockDuration,
      limiter: this.opts.limiter,
      name: this.opts.name,
    };
  }

  /** Fetch-next rides on the completion call unless the worker is stopping or rate limited. */
  private fetchNextIdentity(token: string): FetchIdentity | undefined {
    if (this.stopping || this.paused || this.quiet || this.rateLimitGate.isLimited()) {
      return undefined;
    }
    return this.identity(token);
  }

  /** Starts processing; resolves when the worker has closed. */
  run(): Promise<void> {
    if (this.stopping) return Promise.reject(new ClosedError(`Worker ${this.name} is closed`));
    const loop = this.loop;
    if (!loop) {
      return Promise.reject(
        new ValidationError('Worker has no processor: use getNextJob for manual processing'),
      );
    }
    if (this.running) return Promise.reject(new ValidationError('Worker is already running'));
    this.running = this.mainLoop(loop);
    return this.running;
  }

  private async mainLoop(loop: SlotLoop<Work>): Promise<void> {
    await this.waitUntilReady();
    this.attempts.metrics.slotsOpened(this.concurrency);
    this.slotsCounted = true;
    try {
      await this.services.startAll();
    } catch (error) {
      // The services started before the failing one are stopped again; the worker closes.
      this.stopping = true;
      await this.finishClosing();
      throw error;
    }
    await loop.run();
    await this.finishClosing();
  }

  private wakeUp(): void {
    this.loop?.wakeUp();
  }

  /** A span per stalled job, in the job's trace (tracing on only; stalls are rare). */
  private async traceStalls(ids: string[]): Promise<void> {
    if (!this.attempts.tracing()) return;
    try {
      const hashes = await Promise.all(ids.map((id) => this.backend.getJobHash(id)));
      const stalled = ids.flatMap((jobId, index) => {
        const hash = hashes[index];
        if (!hash) return [];
        const job = Job.fromHash(this, jobId, hash);
        return [{ jobId, carrier: carrierOfJob(job), stalledCount: job.stalledCounter }];
      });
      this.attempts.recordStalls(stalled);
    } catch (error) {
      this.emitError(error);
    }
  }

  /** Resolves once no slot runs. */
  private whenSlotsEmpty(): Promise<void> {
    return this.loop?.whenEmpty() ?? Promise.resolve();
  }

  // ---- manual processing (no processor), bullmq's API ----

  /**
   * Locks the next job with `token` and returns it, or undefined when there is none (after one
   * wait of up to drainDelay for a new one with `block`, the default), or the worker is paused,
   * closing or rate limited. The job's lock is not renewed: extend it with job.extendLock, and
   * finish the job with job.moveToCompleted / moveToFailed using the same token.
   */
  async getNextJob(
    token: string,
    { block = true }: GetNextJobOptions = {},
  ): Promise<Job<DataType, ReturnType, NameType> | undefined> {
    if (typeof token !== 'string' || token.length === 0) {
      throw new ValidationError('getNextJob needs a lock token (a non-empty string)');
    }
    if (this.paused || this.stopping || this.rateLimitGate.isLimited()) return undefined;
    // The running loop owns the blocking connection: a worker with a processor fetches only.
    const result = await fetchForManualProcessing(
      this.backend,
      this.markerWaiter,
      this.identity(token),
      block && !this.running,
      () => this.stopping || this.paused,
    );
    if (result.kind === 'none') {
      this.rateLimitGate.limitFor(result.rateLimitTtl);
      return undefined;
    }
    const job = Job.fromHash<DataType, ReturnType, NameType>(this, result.jobId, result.hash);
    job.token = token;
    if (job.repeatJobKey) {
      await this.scheduler
        .createNextIteration(job)
        .catch((error: unknown) => this.emitError(error));
    }
    this.emit('active', job, 'waiting');
    return job;
  }

  /**
   * Starts the periodic stalled-jobs check (run() starts it itself; manual processing calls this).
   * Does nothing with skipStalledCheck or once closing.
   */
  async startStalledCheckTimer(): Promise<void> {
    if (this.opts.skipStalledCheck || this.stopping) return;
    await this.services.start(SERVICE.stalledChecker);
  }

  /** bullmq's lock renewal of several jobs at once: the ids whose lock was lost. */
  extendJobLocks(jobIds: string[], tokens: string[], duration: number): Promise<string[]> {
    return this.backend.extendLocks(jobIds, tokens, duration);
  }

  // ---- cancellation ----

  /**
   * Kills what runs one job (a sandboxed processor's child); set by a Worker whose processor is
   * sandboxed. True when something was killed.
   */
  protected forceStop?: (jobId: string) => boolean;

  /**
   * A cancel request through Redis (queue.cancelJob, the console), taken from the heartbeat:
   * unlike cancelJob, it ends the attempt as cancelled (job-outcomes.ts failCancelled) however the
   * processor gives up; `force` also kills the job's sandbox child.
   */
  private cancelFromRedis(jobId: string, request: CancelRequest): void {
    const runningJob = this.runningJobs.requestCancel(jobId, request);
    if (runningJob && request.force) this.forceStop?.(jobId);
  }

  /**
   * Aborts the AbortSignal of a job this worker is running (the processor's third argument), with
   * `reason` as signal.reason. The job's fate is its processor's: a rejection is a failed attempt
   * (retried while attempts remain), a return completes it. False when the job is not running
   * here, or its processor takes no signal (declares fewer than three parameters) and has not
   * read `job.signal`.
   */
  cancelJob(jobId: string, reason?: string): boolean {
    return this.runningJobs.cancel(jobId, reason);
  }

  /** cancelJob for every job this worker is running. */
  cancelAllJobs(reason?: string): void {
    this.runningJobs.cancelAll(reason);
  }

  /**
   * bullmq's manual rate limit: no job of this queue starts for `ms` (workers with a limiter) and
   * a processor that then throws Worker.RateLimitError() puts its job back without an attempt.
   */
  async rateLimit(ms: number): Promise<void> {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new ValidationError('rateLimit needs a duration in ms (0 or more)');
    }
    if (ms === 0) return;
    await this.ops.rateLimit(ms);
  }

  /** Stops taking new jobs; running jobs go on. With doNotWaitActive false, waits for them. */
  async pause(doNotWaitActive = false): Promise<void> {
    if (this.paused) return;
    this.paused = true;
    this.markerWaiter.interrupt();
    this.emit('paused');
    if (!doNotWaitActive) await this.whenSlotsEmpty();
  }

  /** Takes new jobs again. Async like bullmq's; the effect is immediate. */
  async resume(): Promise<void> {
    if (!this.paused) return;
    this.paused = false;
    this.wakeUp();
    this.emit('resumed');
  }

  /**
   * Graceful close: stop fetching, let running jobs finish (their completion fetches nothing),
   * then stop every background service, release connections and stop sandbox children.
   * close(true) does not wait for running jobs (and kills sandbox children); their locks expire
   * and the stalled checker of any worker puts them back. close(true) after close() still forces.
   */
  close(force = false): Promise<void> {
    this.stopping = true;
    if (force) {
      this.abort.abort();
      this.graceful.forceNow();
    }
    this.closing ??= (async () => {
      this.emit('closing', 'closing worker');
      this.markerWaiter.interrupt();
      this.wakeUp();
      // With Redis down the loop's pending command never returns: stop waiting for it then.
      if (this.running && !force) {
        await Promise.race([this.running.catch(() => undefined), this.connection.lost()]);
      }
      await this.finishClosing();
    })();
    return this.closing;
  }

  /**
   * Shutdown with a deadline (an OxMQ addition). Stops fetching at once and waits up to
   * `timeoutMs` for the running jobs. At the deadline the rest are given up: the AbortSignal
   * fires for in-process processors, sandbox children are killed, and each job goes back to the
   * front of wait with its lock released and no attempt counted, so no stalled check ever finds
   * it. A processor that ignores the signal and returns later changes nothing. Then the worker
   * closes. Calling it again can only bring the deadline forward (0: now); every call resolves
   * with the same report.
   */
  closeGracefully(timeoutMs: number): Promise<GracefulCloseReport> {
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) {
      return Promise.reject(
        new ValidationError('closeGracefully needs a timeout in ms (0 or more)'),
      );
    }
    return this.graceful.start(timeoutMs, () => this.close());
  }

  /** Waits for the slots (unless forced or Redis is gone), stops every service, disconnects. */
  private finishClosing(): Promise<void> {
    this.finished ??= (async () => {
      await Promise.race([
        this.whenSlotsEmpty(),
        this.connection.lost(),
        this.graceful.stopWaitingForJobs,
      ]);
      await this.services.stopAll();
      if (this.slotsCounted) this.attempts.metrics.slotsClosed(this.concurrency);
      this.slotsCounted = false;
      await this.connection.close();
      this.emit('closed');
    })();
    return this.finished;
  }
}
