import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { FetchIdentity, FetchResult } from './backend/queue-backend';
import { RedisQueueBackend } from './backend/redis/redis-queue-backend';
import { RedisQueueOperations } from './backend/redis/queue-operations';
import { connect, release, untilDisconnected, type ManagedConnection } from './connection';
import { DEFAULTS } from './defaults';
import {
  ClosedError,
  FailedChildrenError,
  PendingDependenciesError,
  RateLimitError,
  UnrecoverableError,
  ValidationError,
} from './errors';
import { Job, movedByProcessor, processingSignals } from './job';
import type { JobFinishingContext, JobScope } from './job-scope';
import { JobScheduler } from './job-scheduler';
import { keepRule } from './keep-jobs';
import { QueueKeys } from './keys';
import { LockRenewer } from './maintenance/lock-renewer';
import { StalledChecker } from './maintenance/stalled-checker';
import { SandboxAbortedError } from './sandbox/errors';
import { resolveProcessorFile, SandboxedProcessor } from './sandbox/sandboxed-processor';
import { clientAddress } from './worker/client-address';
import { Deadline } from './worker/deadline';
import { HEARTBEAT_MAX_LISTED_JOBS, WorkerHeartbeat } from './worker/heartbeat';
import { planFailure } from './worker/failure-plan';
import { InFlightJobs, type Flight } from './worker/in-flight';
import { CompletionBatcher, type CompletionResult } from './worker/completion-batcher';
import { MarkerWaiter } from './worker/marker-waiter';
import { abortableDelay } from './worker/abortable-delay';
import { fetchForManualProcessing } from './worker/next-job';
import type { GetNextJobOptions } from './worker/worker-listener';
import { classifyThrown, unmovedSignalError } from './worker/processor-signals';
import { carrierOfJob, JobAttempts } from './telemetry/job-attempts';
import { ATTR, SPAN_EVENT } from './telemetry/semconv';
import { tracerFor } from './telemetry/tracing';
import { WorkerMetrics } from './telemetry/worker-metrics';
import type { WorkerOptions } from './worker-options';
import { validateWorkerOptions } from './worker-validation';

/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export type Processor<DataType = any, ReturnType = any, NameType extends string = string> = (
  job: Job<DataType, ReturnType, NameType>,
  token?: string,
  signal?: AbortSignal,
) => Promise<ReturnType>;
/* eslint-enable @typescript-eslint/no-explicit-any */

type FetchedJob = Extract<FetchResult, { kind: 'job' }> & { token: string };

/** What a fetch found: work for one slot each, or why there is none (rate limit, next due time). */
export type SlotFetch = { kind: 'work'; works: unknown[] } | Extract<FetchResult, { kind: 'none' }>;

interface GracefulClose {
  deadline: Deadline;
  /** Jobs finished since closeGracefully was called. */
  completedInTime: number;
  /** Jobs given back to wait, as the moves succeed. */
  returnedToWait: string[];
  report?: Promise<GracefulCloseReport>;
}

/** What closeGracefully did with the jobs that were running. */
export interface GracefulCloseReport {
  /** Jobs that finished (completed, failed or were retried) before the deadline. */
  completedInTime: number;
  /** Ids of the jobs given back to wait at the deadline (lock released, no attempt counted). */
  returnedToWait: string[];
}

/** bullmq's manual rate limit: the limiter counter set past any max, for `ms`. */
const MANUAL_RATE_LIMIT_COUNTER = '9007199254740991';

/** Client name bullmq's getWorkers() and Bull-Board look for. */
export function workerConnectionName(
  prefix: string,
  queueName: string,
  workerName?: string,
): string {
  const base = `${prefix}:${Buffer.from(queueName).toString('base64')}`;
  return workerName ? `${base}:w:${workerName}` : base;
}

/**
 * Processes jobs of one queue. Local events: ready, active, progress, completed, failed,
 * stalled, drained, error, lockRenewalFailed, closing, closed.
 *
 * The processor is a function (runs in this process) or the path / file: URL of a module whose
 * default export is the processor, run in sandbox children (child processes, or worker threads
 * with `useWorkerThreads`): see engine/sandbox/.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- bullmq-compatible generic defaults */
export class Worker<DataType = any, ReturnType = any, NameType extends string = string>
  /* eslint-enable @typescript-eslint/no-explicit-any */
  extends EventEmitter
  implements JobScope
{
  readonly prefix: string;
  readonly keys: QueueKeys;
  readonly backend: RedisQueueBackend;
  readonly ops: RedisQueueOperations;
  readonly id = randomUUID();
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
  private readonly connection: ManagedConnection;
  private readonly blockingConnection: ManagedConnection;
  protected readonly lockRenewer: LockRenewer;
  private readonly stalledChecker: StalledChecker;
  protected readonly scheduler: JobScheduler;
  /** Slots running (a slot runs one job, then the next one its completion fetched, ...). */
  private slotCount = 0;
  /** Resolved when slotCount drops to 0; made only when someone waits for that. */
  private slotsEmpty?: { promise: Promise<void>; resolve: () => void };
  protected readonly abort = new AbortController();
  /** Undefined for manual processing (no processor: getNextJob and job.moveToCompleted). */
  private readonly processor?: Processor<DataType, ReturnType, NameType>;
  /** bullmq's rule: a per-job AbortSignal (cancelJob) only for a processor that takes one. */
  private readonly processorTakesSignal: boolean = false;
  /** What jobs of this worker finish with when code finishes them (manual processing). */
  readonly finishing: JobFinishingContext;
  /** Set when the processor is a file: the children that run it. */
  private readonly sandbox?: SandboxedProcessor;
  protected readonly inFlight = new InFlightJobs();
  /** Resolved when closing must stop waiting for running jobs (close(true), a passed deadline). */
  private readonly stopWaitingForJobs = deferred();
  /** While closeGracefully runs: its deadline, the jobs finished since, and its report. */
  protected graceful?: GracefulClose;
  private tokenCounter = 0;
  private running?: Promise<void>;
  private closing?: Promise<void>;
  protected paused = false;
  /** Quieted through Redis (engine/admin/worker-heartbeats.ts): no new jobs until resumed. */
  protected quiet = false;
  /** Undefined with heartbeatInterval 0. */
  private readonly heartbeat?: WorkerHeartbeat;
  /** Set first thing in close(), before any await, so every loop sees it at once. */
  protected stopping = false;
  private drainedEmitted = false;
  protected limitUntil = 0;
  /** Wakes the fetch loop when a slot frees up, the worker resumes or closes. */
  private wake?: () => void;
  private readonly markerWaiter: MarkerWaiter;
  /** Completions of one event-loop turn share one script call (see completion-batcher.ts). */
  private readonly completions: CompletionBatcher;
  /** Spans and metrics of the attempts this worker runs (engine/telemetry/). */
  protected readonly attempts: JobAttempts;
  private slotsCounted = false;

  constructor(
    readonly name: string,
    processor: Processor<DataType, ReturnType, NameType> | string | URL | null | undefined,
    readonly opts: WorkerOptions,
  ) {
    super();
    validateWorkerOptions(
      opts,
      (new.target as { extraOptionKeys?: readonly string[] }).extraOptionKeys,
    );
    const tracer = tracerFor(opts.telemetry);
    if (typeof processor === 'function') {
      this.processor = processor;
      this.processorTakesSignal = processor.length >= 3;
    } else if (typeof processor === 'string' || processor instanceof URL) {
      const sandbox = new SandboxedProcessor({
        file: resolveProcessorFile(processor),
        useWorkerThreads: opts.useWorkerThreads === true,
        startOptions: {
          forkOptions: opts.workerForkOptions,
          threadOptions: opts.workerThreadsOptions,
        },
        onError: (error) => this.emitError(error),
      });
      this.sandbox = sandbox;
      // The worker's signal kills the child on close; the job's own is passed into the child.
      this.processor = (job, token, signal) =>
        sandbox.process(job, this.abort.signal, signal, token) as Promise<ReturnType>;
      this.processorTakesSignal = true;
    } else if (processor !== null && processor !== undefined) {
      throw new ValidationError(
        'Worker processor must be a function, the path or file: URL of a processor module, or ' +
          'null for manual processing',
      );
    }
    this.prefix = opts.prefix ?? DEFAULTS.prefix;
    this.keys = new QueueKeys(this.prefix, name);
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

    this.connection = connect(opts.connection, { retryForever: true });
    this.blockingConnection = connect(opts.connection, {
      blocking: true,
      connectionName: workerConnectionName(this.prefix, name, opts.name),
    });
    for (const { client } of [this.connection, this.blockingConnection]) {
      client.on('error', (error: Error) => this.emitError(error));
    }
    this.backend = new RedisQueueBackend(
      this.connection.client,
      this.keys,
      this.blockingConnection.client,
    );
    this.ops = new RedisQueueOperations(this.connection.client, this.keys);
    this.attempts = new JobAttempts(
      tracer,
      new WorkerMetrics(this.prefix, name, opts.telemetry?.meter),
      { name, prefix: this.prefix, onError: (error) => this.emitError(error) },
    );
    this.markerWaiter = new MarkerWaiter(
      this.backend,
      this.blockingConnection.client,
      this.connection.client,
      this.settings.drainDelay,
      () => this.stopping || this.paused || this.quiet,
    );
    this.scheduler = new JobScheduler(this.connection.client, this.keys, this);
    this.finishing = {
      removeOnComplete: opts.removeOnComplete,
      removeOnFail: opts.removeOnFail,
      metricsMaxDataPoints: opts.metrics?.maxDataPoints,
      backoffStrategy: opts.settings?.backoffStrategy,
      fetchIdentity: (token) => this.fetchNextIdentity(token),
    };
    this.completions = new CompletionBatcher(
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
    this.stalledChecker = new StalledChecker(
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

    this.heartbeat = this.makeHeartbeat(
      opts.heartbeatInterval ?? DEFAULTS.worker.heartbeatInterval,
    );

    // Cancelling the worker's signal (close(true), closeGracefully's deadline) cancels each job's.
    this.abort.signal.addEventListener('abort', () => this.inFlight.cancelAll(), { once: true });
    // Like bullmq: 'ready' once both connections are, whether or not the worker runs.
    this.waitUntilReady().then(
      () => this.emit('ready'),
      () => undefined,
    );
    if (opts.autorun !== false && this.processor) {
      this.run().catch((error: unknown) => this.emitError(error));
    }
  }

  private makeHeartbeat(intervalMs: number): WorkerHeartbeat | undefined {
    if (intervalMs === 0) return undefined;
    const heartbeat = new WorkerHeartbeat(
      this.connection.client,
      this.keys,
      { workerId: this.id, workerName: this.opts.name, intervalMs },
      {
        snapshot: () => ({
          concurrency: this.concurrency,
          jobIds: this.inFlight.ids(HEARTBEAT_MAX_LISTED_JOBS),
          active: this.inFlight.size,
          quiet: this.quiet,
          paused: this.paused,
          clientAddress: clientAddress(this.blockingConnection.client),
        }),
        cancel: (jobId, reason) => this.cancelJob(jobId, reason === '' ? undefined : reason),
        setQuiet: (quiet) => this.setQuiet(quiet),
        onError: (error) => this.emitError(error),
      },
    );
    this.on('completed', () => (heartbeat.completed += 1));
    this.on('failed', () => (heartbeat.failed += 1));
    this.on('lockRenewalFailed', (ids: string[]) => (heartbeat.lockRenewalFailures += ids.length));
    return heartbeat;
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

  /** Options a subclass adds to WorkerOptions (the constructor refuses any other unknown one). */
  static readonly extraOptionKeys: readonly string[] = [];

  /** `<prefix>:<queue name>`, as bullmq names it. */
  get qualifiedName(): string {
    return `${this.prefix}:${this.name}`;
  }

  /** The Redis key of one of this queue's structures (`<prefix>:<queue>:<type>`). */
  toKey(type: string): string {
    return `${this.qualifiedName}:${type}`;
  }

  /** The storage seam this worker uses (bullmq's getBackend; OxMQ's own interface). */
  getBackend(): RedisQueueBackend {
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

  /** The non-blocking client (exposed for tests and tools; the hot path goes through backend). */
  get client(): Redis {
    return this.connection.client;
  }

  isRunning(): boolean {
    return this.running !== undefined && !this.stopping;
  }

  isPaused(): boolean {
    return this.paused;
  }

  async waitUntilReady(): Promise<void> {
    await Promise.all([
      waitForReady(this.connection.client),
      waitForReady(this.blockingConnection.client),
    ]);
  }

  protected emitError(error: unknown): void {
    if (this.stopping && isConnectionClosedError(error)) return;
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error(`OxMQ worker ${this.name}:`, error);
  }

  protected nextToken(): string {
    return `${this.id}:${this.tokenCounter++}`;
  }

  protected identity(token: string): FetchIdentity {
    return {
      token,
      lockDuration: this.settings.lockDuration,
      limiter: this.opts.limiter,
      name: this.opts.name,
    };
  }

  /** Starts processing; resolves when the worker has closed. */
  run(): Promise<void> {
    if (this.stopping) return Promise.reject(new ClosedError(`Worker ${this.name} is closed`));
    if (!this.processor) {
      return Promise.reject(
        new ValidationError('Worker has no processor: use getNextJob for manual processing'),
      );
    }
    if (this.running) return Promise.reject(new ValidationError('Worker is already running'));
    this.running = this.mainLoop();
    return this.running;
  }

  private async mainLoop(): Promise<void> {
    await this.waitUntilReady();
    this.attempts.metrics.slotsOpened(this.concurrency);
    this.slotsCounted = true;
    if (!this.opts.skipLockRenewal) this.lockRenewer.start();
    if (!this.opts.skipStalledCheck) this.stalledChecker.start();
    this.heartbeat?.start();

    while (!this.stopping) {
      try {
        if (this.paused || this.quiet || this.slotCount >= this.concurrency) {
          await this.sleepUntilWoken();
          continue;
        }
        const waitForLimit = this.limitUntil - Date.now();
        if (waitForLimit > 0) {
          await this.sleepUntilWoken(Math.min(waitForLimit, this.settings.maximumRateLimitDelay));
          continue;
        }
        const result = await this.fetchWork(this.nextToken(), this.concurrency - this.slotCount);
        if (result.kind === 'work') {
          for (const work of result.works) this.startSlot(work);
          continue;
        }
        if (result.rateLimitTtl > 0) {
          this.limitUntil = Date.now() + result.rateLimitTtl;
          continue;
        }
        if (!this.drainedEmitted && this.slotCount === 0) {
          this.drainedEmitted = true;
          this.emit('drained');
        }
        await this.markerWaiter.wait(result.nextDelayedTs, result.held === true);
      } catch (error) {
        if (this.stopping) break;
        this.emitError(error);
        await this.sleepUntilWoken(this.opts.runRetryDelay ?? DEFAULTS.worker.runRetryDelay);
      }
    }
    await this.finishClosing();
  }

  /** Sleeps until a slot frees, the worker resumes or closes, or `ms` passes. */
  private sleepUntilWoken(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private wakeUp(): void {
    this.wake?.();
  }

  /**
   * One fetch for the free slots: jobs (a batch in BatchWorker), or why there is none. The unit
   * a slot runs is opaque here so BatchWorker can run batches through the same loop, slots,
   * pause and close logic. With several slots free (a start, a burst after idling) one call
   * takes a job for each, up to maxFetchBatch, instead of one round trip per slot.
   */
  protected async fetchWork(token: string, freeSlots: number): Promise<SlotFetch> {
    if (freeSlots > 1) {
      const fetched = await this.backend.fetchJobBatch({
        identity: this.identity(token),
        batchSize: Math.min(freeSlots, DEFAULTS.worker.maxFetchBatch),
        maxBatchBytes: 0,
      });
      if (fetched.kind === 'none') return fetched;
      return { kind: 'work', works: fetched.jobs.map((job) => ({ kind: 'job', ...job, token })) };
    }
    const result = await this.backend.fetchNextJob(this.identity(token));
    return result.kind === 'job' ? { kind: 'work', works: [{ ...result, token }] } : result;
  }

  /** Runs one unit a slot fetched; returns the next one when the completion fetched it. */
  protected runWork(work: unknown): Promise<unknown> {
    return this.processJob(work as FetchedJob);
  }

  private startSlot(first: unknown): void {
    this.drainedEmitted = false;
    this.slotCount += 1;
    void this.runSlot(first);
  }

  // One async function per slot and a counter rather than a promise chain held in a set: at
  // concurrency 10,000 every promise and closure per slot is heap per in-flight job.
  private async runSlot(first: unknown): Promise<void> {
    try {
      let next: unknown = first;
      while (next) next = await this.runWork(next);
    } catch (error) {
      this.emitError(error);
    } finally {
      this.slotCount -= 1;
      if (this.slotCount === 0 && this.slotsEmpty) {
        this.slotsEmpty.resolve();
        this.slotsEmpty = undefined;
      }
      this.wakeUp();
    }
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
    if (this.slotCount === 0) return Promise.resolve();
    this.slotsEmpty ??= deferred();
    return this.slotsEmpty.promise;
  }

  /** Fetch-next rides on the completion call unless the worker is stopping or rate limited. */
  protected fetchNextIdentity(token: string): FetchIdentity | undefined {
    if (this.stopping || this.paused || this.quiet || this.limitUntil > Date.now()) {
      return undefined;
    }
    return this.identity(token);
  }

  /** Runs one job and records its outcome; returns the next job when fetch-next got one. */
  private async processJob(fetched: FetchedJob): Promise<FetchedJob | undefined> {
    const job = Job.fromHash<DataType, ReturnType, NameType>(this, fetched.jobId, fetched.hash);
    // The Job holds what it needs; the raw hash would otherwise live as long as the slot's
    // reference to `fetched` (the whole run): at concurrency 10,000 that is heap per job.
    (fetched as { hash?: unknown }).hash = undefined;
    const token = fetched.token;
    job.token = token;
    // Its span and metrics, ended in the finally below (one async frame per job: at concurrency
    // 10,000 a second suspended frame would be heap per in-flight job).
    const attempt = this.attempts.start(job);
    try {
      if (job.deferredFailure) {
        await this.failJob(job, token, new UnrecoverableError(job.deferredFailure));
        return undefined;
      }
      if (
        this.opts.maxStartedAttempts !== undefined &&
        job.attemptsStarted > this.opts.maxStartedAttempts
      ) {
        await this.failJob(
          job,
          token,
          new UnrecoverableError('job started more than allowable limit'),
        );
        return undefined;
      }

      this.lockRenewer.track(job.id, token);
      const flight = this.inFlight.start(job.id, token);
      const signal = this.signalFor(flight);
      processingSignals.set(job, () => this.jobSignal(flight, signal));
      if (this.graceful?.deadline.hasPassed()) {
        // Fetched by a completion sent before closeGracefully, arriving after its deadline.
        await this.giveBack(flight).finally(() => this.inFlight.end(flight));
        return undefined;
      }
      this.emit('active', job, 'waiting');
      if (job.repeatJobKey)
        await this.scheduler
          .createNextIteration(job)
          .catch((error: unknown) => this.emitError(error));
      try {
        let result: ReturnType;
        try {
          // Inside the attempt's span when tracing (no closure per job otherwise).
          // processJob only runs for a worker with a processor (run() refuses otherwise).
          const processor = this.processor!;
          result = await (attempt.span
            ? attempt.span.run(() => processor(job, token, signal))
            : processor(job, token, signal));
        } catch (error) {
          if (this.isGivenUp(flight, error)) return undefined;
          flight.phase = 'finishing';
          await this.handleProcessorError(job, token, error);
          return undefined;
        }
        if (this.isGivenUp(flight)) return undefined;
        flight.phase = 'finishing';
        return await this.completeJob(job, token, result);
      } finally {
        if (flight.phase !== 'returned') {
          this.lockRenewer.untrack(job.id);
          if (this.graceful) this.graceful.completedInTime += 1;
        }
        this.inFlight.end(flight);
      }
    } finally {
      processingSignals.delete(job);
      this.attempts.end(job);
    }
  }

  /**
   * The signal a job's processor gets: its own (worker.cancelJob aborts it, and so does the
   * worker's) when the processor takes one, else the worker's alone, with no object per job.
   */
  private signalFor(flight: Flight): AbortSignal {
    if (!this.processorTakesSignal || this.abort.signal.aborted) return this.abort.signal;
    flight.controller = new AbortController();
    return flight.controller.signal;
  }

  /**
   * `job.signal`: the signal the processor got when it takes one; otherwise one made on first
   * use, so a processor of one parameter that watches job.signal is cancellable too, while one
   * that never reads it costs no AbortController per job.
   */
  private jobSignal(flight: Flight, given: AbortSignal): AbortSignal {
    if (flight.controller) return flight.controller.signal;
    if (this.processorTakesSignal || this.abort.signal.aborted) return given;
    flight.controller = new AbortController();
    return flight.controller.signal;
  }

  /**
   * True when the worker no longer owns the outcome of this job: closeGracefully gave it back
   * to wait (a late result would only fail on the released lock), or close(true) killed its
   * sandbox child (the job stays active for the stalled checker, as with in-process jobs).
   */
  protected isGivenUp(flight: Flight, error?: unknown): boolean {
    if (flight.phase === 'returned') return true;
    return error instanceof SandboxAbortedError && this.abort.signal.aborted;
  }

  private async completeJob(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    result: ReturnType,
  ): Promise<FetchedJob | undefined> {
    let value: string;
    try {
      value = JSON.stringify(result) ?? 'null';
    } catch (error) {
      await this.failJob(
        job,
        token,
        new UnrecoverableError(
          `Return value is not JSON-serialisable: ${(error as Error).message}`,
        ),
      );
      return undefined;
    }
    const nextToken = this.nextToken();
    let outcome: CompletionResult;
    try {
      outcome = await this.completions.complete({
        jobId: job.id,
        token,
        value,
        keep: keepRule(job.opts.removeOnComplete, this.opts.removeOnComplete),
        attempts: job.opts.attempts ?? 0,
        fetchNext: this.fetchNextIdentity(nextToken),
      });
    } catch (error) {
      this.emitError(error);
      return undefined;
    }
    const { error, next } = outcome;
    if (error) {
      // A parent cannot complete while a child it depends on failed (or is still pending):
      // that is the job's failure, not an engine error.
      if (error instanceof FailedChildrenError) {
        await this.failJob(job, token, new UnrecoverableError(error.message));
      } else if (error instanceof PendingDependenciesError) {
        await this.failJob(job, token, error);
      } else {
        this.emitError(error);
      }
    } else {
      job.returnvalue = result;
      job.finishedOn = Date.now();
      job.attemptsMade += 1;
      this.attempts.of(job)?.completed();
      this.emit('completed', job, result, 'active');
    }
    // A next job fetched along with a refused completion is still this worker's to run.
    return this.acceptNext(next, next?.token ?? nextToken);
  }

  private acceptNext(next: FetchResult | undefined, token: string): FetchedJob | undefined {
    if (!next) return undefined;
    if (next.kind === 'job') return { ...next, token };
    if (next.rateLimitTtl > 0) this.limitUntil = Date.now() + next.rateLimitTtl;
    return undefined;
  }

  /**
   * Runs a finishing call; a Redis refusal (lock lost, job removed meanwhile) is reported as an
   * error event and returns null: the job stays where the stalled logic put it.
   */
  private async recordOutcome<T>(
    job: Job<DataType, ReturnType, NameType>,
    call: () => Promise<T>,
  ): Promise<T | null> {
    try {
      return await call();
    } catch (error) {
      this.emitError(error);
      void job;
      return null;
    }
  }

  protected async handleProcessorError(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    thrown: unknown,
  ): Promise<void> {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const signal = classifyThrown(error);
    if (signal.kind === 'self-moved') {
      if (await this.wasMovedByProcessor(job, token)) {
        this.attempts.of(job)?.moved(...signal.outcome);
        return;
      }
      await this.failJob(job, token, unmovedSignalError(signal));
      return;
    }
    if (signal.kind === 'delay') {
      const moved = await this.recordOutcome(job, async () => {
        await this.backend.postponeJob(job.id, token, signal.until);
        return true;
      });
      if (moved) {
        job.delay = Math.max(0, signal.until - Date.now());
        this.attempts.of(job)?.moved('delayed', SPAN_EVENT.delayed);
      }
      return;
    }
    if (signal.kind === 'rate-limit') {
      const ttl = await this.recordOutcome(job, () =>
        this.backend.moveActiveJobToWait(job.id, token),
      );
      if (ttl && ttl > 0) this.limitUntil = Date.now() + ttl;
      this.attempts
        .of(job)
        ?.moved('rate-limited', SPAN_EVENT.rateLimited, { [ATTR.rateLimitTtl]: ttl ?? 0 });
      return;
    }
    await this.failJob(job, token, error);
  }

  /**
   * Whether the job left active before its processor threw a "moved" signal: known at once when
   * the move went through this Job, else (a sandboxed processor's move) read from the lock, which
   * every move releases. A job whose lock is still ours was not moved.
   */
  private async wasMovedByProcessor(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
  ): Promise<boolean> {
    if (movedByProcessor.has(job)) return true;
    const lock = await this.connection.client.get(this.keys.jobLock(job.id));
    return lock !== token;
  }

  /** A failed attempt: retry (now or after backoff) while attempts remain, else fail for good. */
  protected async failJob(
    job: Job<DataType, ReturnType, NameType>,
    token: string,
    error: Error,
  ): Promise<void> {
    const { delay, fields, stacktrace, attemptsMade } = await planFailure(
      job,
      error,
      this.opts.settings?.backoffStrategy,
    );
    const outcome =
      delay >= 0
        ? await this.recordOutcome(job, () =>
            this.backend.retryJob({
              jobId: job.id,
              token,
              delay,
              lifo: job.opts.lifo === true,
              fields,
            }),
          )
        : await this.recordOutcome(job, () =>
            this.backend.finishJob({
              jobId: job.id,
              token,
              outcome: 'failed',
              value: fields.failedReason,
              keep: keepRule(job.opts.removeOnFail, this.opts.removeOnFail),
              attempts: job.opts.attempts ?? 0,
              fields,
              metricsMaxDataPoints: this.opts.metrics?.maxDataPoints,
            }),
          );
    if (outcome === null) {
      this.attempts.of(job)?.unrecorded(error);
      return;
    }
    this.attempts.of(job)?.failed(error, delay, attemptsMade);
    job.attemptsMade = attemptsMade;
    job.failedReason = fields.failedReason;
    job.stacktrace = stacktrace;
    if (delay < 0) job.finishedOn = Date.now();
    // The retry's backoff, as the hash now holds it.
    if (delay > 0) job.delay = delay;
    this.emit('failed', job, error, 'active');
  }

  // ---- manual processing (a Worker without a processor), bullmq's API ----

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
    if (this.paused || this.stopping || this.limitUntil > Date.now()) return undefined;
    // The running loop owns the blocking connection: a worker with a processor fetches only.
    const result = await fetchForManualProcessing(
      this.backend,
      this.markerWaiter,
      this.identity(token),
      block && !this.running,
      () => this.stopping || this.paused,
    );
    if (result.kind === 'none') {
      if (result.rateLimitTtl > 0) this.limitUntil = Date.now() + result.rateLimitTtl;
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
    this.stalledChecker.start();
  }

  /** bullmq's lock renewal of several jobs at once: the ids whose lock was lost. */
  extendJobLocks(jobIds: string[], tokens: string[], duration: number): Promise<string[]> {
    return this.backend.extendLocks(jobIds, tokens, duration);
  }

  // ---- cancellation (local to this worker) ----

  /**
   * Aborts the AbortSignal of a job this worker is running (the processor's third argument), with
   * `reason` as signal.reason. The job's fate is its processor's: a rejection is a failed attempt
   * (retried while attempts remain), a return completes it. False when the job is not running
   * here, or its processor takes no signal (declares fewer than three parameters) and has not
   * read `job.signal`.
   */
  cancelJob(jobId: string, reason?: string): boolean {
    return this.inFlight.cancel(jobId, reason);
  }

  /** cancelJob for every job this worker is running. */
  cancelAllJobs(reason?: string): void {
    this.inFlight.cancelAll(reason);
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
    await this.connection.client.set(
      this.keys.limiter,
      MANUAL_RATE_LIMIT_COUNTER,
      'PX',
      Math.round(ms),
    );
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
   * then release connections and stop sandbox children. close(true) does not wait for running
   * jobs (and kills sandbox children); their locks expire and the stalled checker of any worker
   * puts them back. close(true) after close() still forces.
   */
  close(force = false): Promise<void> {
    this.stopping = true;
    if (force) {
      this.abort.abort();
      this.stopWaitingForJobs.resolve();
    }
    this.closing ??= (async () => {
      this.emit('closing', 'closing worker');
      this.markerWaiter.interrupt();
      this.wakeUp();
      // With Redis down the loop's pending command never returns: stop waiting for it then.
      if (this.running && !force) {
        await Promise.race([this.running, untilDisconnected(this.connection.client)]);
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
    if (this.graceful?.report) {
      this.graceful.deadline.shorten(timeoutMs);
      return this.graceful.report;
    }
    const graceful: GracefulClose = {
      deadline: new Deadline(timeoutMs),
      completedInTime: 0,
      returnedToWait: [],
    };
    this.graceful = graceful;
    const report = this.closeWithDeadline(graceful, this.close());
    this.graceful.report = report;
    return report;
  }

  private async closeWithDeadline(
    graceful: GracefulClose,
    closed: Promise<void>,
  ): Promise<GracefulCloseReport> {
    const first = await Promise.race([
      closed.then(() => 'closed' as const),
      graceful.deadline.reached.then(() => 'deadline' as const),
    ]);
    if (first === 'deadline') await this.giveBackRunningJobs();
    else graceful.deadline.cancel();
    await closed;
    return {
      completedInTime: graceful.completedInTime,
      returnedToWait: [...graceful.returnedToWait],
    };
  }

  /**
   * The deadline passed: jobs whose processor still runs go back to wait; jobs whose outcome is
   * being written are let finish. Then closing stops waiting for jobs.
   */
  private async giveBackRunningJobs(): Promise<void> {
    // Marked before the signal fires, so a processor rejecting on abort is not failed for it.
    const moves = this.inFlight.inPhase('running').map((flight) => this.giveBack(flight));
    // In-process processors see the signal; sandboxed ones have their child killed.
    this.abort.abort();
    const finishing = this.inFlight
      .inPhase('finishing')
      .map((flight) => this.inFlight.whenDone(flight));
    // With Redis down these calls never return: give up on them rather than hang.
    await Promise.race([
      Promise.all([...moves, ...finishing]),
      untilDisconnected(this.connection.client),
    ]);
    this.stopWaitingForJobs.resolve();
  }

  /**
   * Puts a running job back at the front of wait (lock released, out of the stalled set, no
   * attempt counted), the path the rate limiter uses; whatever its processor does next is
   * ignored. A refusal (the lock was lost meanwhile) is reported as an error.
   */
  private giveBack(flight: Flight): Promise<void> {
    flight.phase = 'returned';
    this.lockRenewer.untrack(flight.jobId);
    return this.backend.moveActiveJobToWait(flight.jobId, flight.token).then(
      () => void this.graceful?.returnedToWait.push(flight.jobId),
      (error: unknown) => this.emitError(error),
    );
  }

  private finished?: Promise<void>;

  private finishClosing(): Promise<void> {
    this.finished ??= (async () => {
      await Promise.race([
        this.whenSlotsEmpty(),
        untilDisconnected(this.connection.client),
        this.stopWaitingForJobs.promise,
      ]);
      // The children of finished jobs are idle now; any still busy ran a job given up.
      await this.sandbox?.close();
      this.lockRenewer.stop();
      this.stalledChecker.stop();
      // Gone from the console at once rather than when the record's TTL runs out.
      // With Redis down the record expires by itself.
      if (this.heartbeat) {
        await Promise.race([
          this.heartbeat.close().catch((error: unknown) => this.emitError(error)),
          untilDisconnected(this.connection.client),
        ]);
      }
      if (this.slotsCounted) this.attempts.metrics.slotsClosed(this.concurrency);
      this.slotsCounted = false;
      // The blocking connection may still sit in BZPOPMIN: drop it rather than QUIT behind it.
      this.blockingConnection.client.disconnect();
      await release(this.connection);
      this.emit('closed');
    })();
    return this.finished;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => (resolve = res));
  return { promise, resolve };
}

function waitForReady(client: Redis): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      client.off('end', onEnd);
      resolve();
    };
    const onEnd = () => {
      client.off('ready', onReady);
      reject(new ClosedError('Connection closed before it was ready'));
    };
    client.once('ready', onReady);
    client.once('end', onEnd);
  });
}

function isConnectionClosedError(error: unknown): boolean {
  return (
    error instanceof Error &&
    /Connection is closed|ClosedError/i.test(`${error.message} ${error.name}`)
  );
}
