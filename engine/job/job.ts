export { truncateUtf8 } from './stacktrace';
import { JobFailedError, JobNotFoundError, TimeoutError, ValidationError } from '../errors';
import type { ParentLinkFields, RawJobHash } from '../backend/queue-backend';
import type { JobStateReply } from '../backend/queue-operations';
import {
  childKeyOf,
  getChildrenValues,
  getDependencies,
  getDependenciesCount,
  type Dependencies,
  type DependenciesOpts,
  type DependencyCounts,
  type DependencyCountsOpts,
} from './dependencies';
import {
  decodeOptions,
  decodeOwnedOptions,
  serializeData,
  validateJobOptions,
  type JobsOptions,
} from './options';
import { completeJob, extendJobLock, failJob, type NextJobTuple } from './manual-finish';
import { hashFromJobJson, jobJsonFromHash, type JobJson } from './json';
import { RUNNING_JOB_SIGNAL, type JobScope } from './scope';
import { parentLinkFor } from './prepare';
import { TraceContext } from '../telemetry/trace-context';
import { optionalInt, parseJson } from './hash-fields';

/** The parent link stored on a child job (`parent` hash field). */
export type ParentLink = ParentLinkFields;

/**
 * Jobs whose processor moved them itself (moveToDelayed, moveToWait, a moveToWaitingChildren
 * that parked it): the worker then takes bullmq's signal errors at their word.
 */
export const movedByProcessor = new WeakSet<Job>();

/** Where a job being processed gets its `job.signal`: a function, or an object that holds it. */
export type ProcessingSignalSource = (() => AbortSignal) | { jobSignal(): AbortSignal | undefined };

/**
 * Jobs a BatchWorker is processing now, each with where its AbortSignal comes from
 * (`job.signal`). Apart from the Job's own fields so that a job read by a Queue carries nothing
 * for it. A Worker's jobs are looked up through their scope instead (RUNNING_JOB_SIGNAL).
 */
export const processingSignals = new WeakMap<Job, ProcessingSignalSource>();

/** What Job.create and Job.createBulk add through (a Queue). */
export interface JobAdder<T, R, N extends string> {
  add(name: N, data: T, opts?: JobsOptions): Promise<Job<T, R, N>>;
  addBulk(jobs: { name: N; data: T; opts?: JobsOptions }[]): Promise<Job<T, R, N>[]>;
}

/** The part of QueueEvents that waitUntilFinished listens to. */
export interface FinishedEventsSource {
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  waitUntilReady?(): Promise<unknown>;
}

// The generics default to `any` like bullmq's, so typed and untyped code both read naturally.
/* eslint-disable @typescript-eslint/no-explicit-any */
export class Job<DataType = any, ReturnType = any, NameType extends string = string> {
  /* eslint-enable @typescript-eslint/no-explicit-any */
  progress: number | object = 0;
  returnvalue: ReturnType | null = null;
  failedReason?: string;
  stacktrace: string[] = [];
  attemptsMade = 0;
  attemptsStarted = 0;
  stalledCounter = 0;
  processedOn?: number;
  finishedOn?: number;
  delay = 0;
  priority = 0;
  parentKey?: string;
  parent?: ParentLink;
  deferredFailure?: string;
  processedBy?: string;
  repeatJobKey?: string;
  deduplicationId?: string;
  traceparent?: string;
  tracestate?: string;
  /**
   * OxMQ: the trace contexts of the children a tracing FlowProducer created under this job,
   * which its processing span links to (hash field `childTraceparents`, a JSON array).
   */
  childTraceparents?: string[];
  /** The lock token while a worker runs the job. */
  token?: string;
  /**
   * OxMQ: on a job just added with the `durable` option, how many replicas the add waited for
   * and how many confirmed it within the timeout (confirmed < replicas: the timeout passed).
   */
  durability?: { replicas: number; confirmed: number };
  private discarded = false;

  /**
   * OxMQ: while a worker processes the job, the attempt's AbortSignal, the same one the processor
   * gets as its third argument: worker.cancelJob and queue.cancelJob abort it, and so does the
   * worker's close(true). Undefined outside processing (a job read by a Queue, or after the
   * processor returned).
   */
  get signal(): AbortSignal | undefined {
    const source = processingSignals.get(this);
    if (source) return typeof source === 'function' ? source() : source.jobSignal();
    return this.scope[RUNNING_JOB_SIGNAL]?.(this.id, this.token);
  }

  constructor(
    protected readonly scope: JobScope,
    public name: NameType,
    public data: DataType,
    public opts: JobsOptions,
    public id: string,
    public timestamp: number,
  ) {
    this.delay = opts.delay ?? 0;
    this.priority = opts.priority ?? 0;
    // A child created here (Queue.add with opts.parent) knows its parent as bullmq's Job does;
    // fromHash overwrites this with what Redis holds.
    const parent = parentLinkFor(opts);
    if (parent) {
      this.parentKey = parent.key;
      this.parent = parent.link;
    }
  }

  /** Builds a Job from a hash written by OxMQ or bullmq. */
  static fromHash<D, R, N extends string>(
    scope: JobScope,
    id: string,
    hash: RawJobHash,
  ): Job<D, R, N> {
    const opts = decodeOwnedOptions(parseJson<Record<string, unknown>>(hash.opts, {}));
    const job = new Job<D, R, N>(
      scope,
      sharedName(hash.name ?? '') as N,
      parseJson<D>(hash.data ?? '{}', {} as D),
      opts,
      id,
      parseInt(hash.timestamp ?? '0', 10),
    );
    job.delay = parseInt(hash.delay ?? '0', 10);
    job.priority = parseInt(hash.priority ?? '0', 10);
    job.progress = parseJson<number | object>(hash.progress, 0);
    job.returnvalue = parseJson<R | null>(hash.returnvalue, null);
    job.failedReason = hash.failedReason;
    const stacktrace = parseJson<unknown>(hash.stacktrace, []);
    job.stacktrace = Array.isArray(stacktrace) ? stacktrace.map(String) : [];
    // bullmq ≤5.x wrote `attemptsMade`; 6.x writes `atm`.
    job.attemptsMade = parseInt(hash.attemptsMade ?? hash.atm ?? '0', 10);
    job.attemptsStarted = parseInt(hash.ats ?? '0', 10);
    job.stalledCounter = parseInt(hash.stc ?? '0', 10);
    job.processedOn = optionalInt(hash.processedOn);
    job.finishedOn = optionalInt(hash.finishedOn);
    job.parentKey = hash.parentKey;
    job.parent = parseJson<ParentLink | undefined>(hash.parent, undefined);
    job.deferredFailure = hash.defa;
    job.processedBy = hash.pb;
    job.repeatJobKey = hash.rjk;
    job.deduplicationId = hash.deid;
    job.traceparent = hash.traceparent;
    job.tracestate = hash.tracestate;
    job.childTraceparents = stringArray(parseJson<unknown>(hash.childTraceparents, undefined));
    return job;
  }

  /** bullmq's Job.create: adds one job through the queue (its defaults and checks apply). */
  static create<T = any, R = any, N extends string = string>( // eslint-disable-line @typescript-eslint/no-explicit-any -- bullmq's defaults
    queue: JobAdder<T, R, N>,
    name: N,
    data: T,
    opts?: JobsOptions,
  ): Promise<Job<T, R, N>> {
    return queue.add(name, data, opts);
  }

  /** bullmq's Job.createBulk: adds the jobs atomically through the queue. */
  static createBulk<T = any, R = any, N extends string = string>( // eslint-disable-line @typescript-eslint/no-explicit-any -- bullmq's defaults
    queue: JobAdder<T, R, N>,
    jobs: { name: N; data: T; opts?: JobsOptions }[],
  ): Promise<Job<T, R, N>[]> {
    return queue.addBulk(jobs);
  }

  /** The job as stored now, or undefined when there is none with that id. */
  static async fromId<T = any, R = any, N extends string = string>( // eslint-disable-line @typescript-eslint/no-explicit-any -- bullmq's defaults
    queue: JobScope,
    jobId: string,
  ): Promise<Job<T, R, N> | undefined> {
    if (typeof jobId !== 'string' || jobId.length === 0) return undefined;
    const hash = await queue.backend.getJobHash(jobId);
    return hash ? Job.fromHash<T, R, N>(queue, jobId, hash) : undefined;
  }

  /**
   * A Job from bullmq's JobJson (what moveToCompleted(…, fetchNext) returns for the next job);
   * `jobId` is used when the JSON carries none.
   */
  static fromJSON<T = any, R = any, N extends string = string>( // eslint-disable-line @typescript-eslint/no-explicit-any -- bullmq's defaults
    queue: JobScope,
    json: Partial<JobJson> | Record<string, unknown>,
    jobId?: string,
  ): Job<T, R, N> {
    const id = typeof json.id === 'string' && json.id ? json.id : jobId;
    if (!id) throw new ValidationError('Job.fromJSON needs a job id (in the JSON or as jobId)');
    return Job.fromHash<T, R, N>(queue, id, hashFromJobJson(json));
  }

  /** Stored (short-key) options JSON back into JobsOptions, as bullmq's static does. */
  static optsFromJSON(rawOpts?: string): JobsOptions {
    return decodeOptions(parseJson<Record<string, unknown>>(rawOpts, {}));
  }

  /** Appends a log line to a job known by id; returns how many lines the job keeps. */
  static addJobLog(
    queue: JobScope,
    jobId: string,
    logRow: string,
    keepLogs?: number,
  ): Promise<number> {
    return queue.backend.addLog(jobId, String(logRow), keepLogs);
  }

  /** bullmq's JobJson of this job (data, return value and stack traces as JSON text). */
  asJSON(): JobJson {
    return {
      ...jobJsonFromHash(this.id, {}),
      name: this.name,
      data: JSON.stringify(this.data ?? {}),
      opts: this.opts,
      progress: this.progress,
      attemptsMade: this.attemptsMade,
      attemptsStarted: this.attemptsStarted,
      stalledCounter: this.stalledCounter,
      finishedOn: this.finishedOn,
      processedOn: this.processedOn,
      timestamp: this.timestamp,
      delay: this.delay,
      priority: this.priority,
      failedReason: this.failedReason ?? '',
      stacktrace: JSON.stringify(this.stacktrace),
      returnvalue: JSON.stringify(this.returnvalue ?? null),
      parent: this.parent,
      parentKey: this.parentKey,
      repeatJobKey: this.repeatJobKey,
      deduplicationId: this.deduplicationId,
      deferredFailure: this.deferredFailure,
      processedBy: this.processedBy,
    };
  }

  get queueName(): string {
    return this.scope.name;
  }

  get prefix(): string {
    return this.scope.prefix;
  }

  /** `<prefix>:<queueName>`, as stored in a child's parent link. */
  get queueQualifiedName(): string {
    return `${this.scope.prefix}:${this.scope.name}`;
  }

  toJSON() {
    return {
      id: this.id,
      name: this.name,
      data: this.data,
      opts: this.opts,
      progress: this.progress,
      attemptsMade: this.attemptsMade,
      attemptsStarted: this.attemptsStarted,
      stalledCounter: this.stalledCounter,
      delay: this.delay,
      priority: this.priority,
      timestamp: this.timestamp,
      processedOn: this.processedOn,
      finishedOn: this.finishedOn,
      returnvalue: this.returnvalue,
      failedReason: this.failedReason,
      stacktrace: this.stacktrace,
      parentKey: this.parentKey,
      parent: this.parent,
      deferredFailure: this.deferredFailure,
      processedBy: this.processedBy,
      repeatJobKey: this.repeatJobKey,
      deduplicationId: this.deduplicationId,
      traceparent: this.traceparent,
      tracestate: this.tracestate,
    };
  }

  async updateProgress(progress: number | object): Promise<void> {
    const json = JSON.stringify(progress);
    if (json === undefined) throw new ValidationError('progress must be a number or an object');
    await this.scope.backend.updateProgress(this.id, json);
    this.progress = progress;
    this.scope.emitter?.emit('progress', this, progress);
  }

  /** Appends a log line; returns how many lines the job keeps. */
  async log(line: string): Promise<number> {
    return this.scope.backend.addLog(this.id, String(line), this.opts.keepLogs);
  }

  /** Drops this job's log lines, all of them or all but the newest `keepLogs`. */
  async clearLogs(keepLogs?: number): Promise<void> {
    if (keepLogs !== undefined && !(Number.isSafeInteger(keepLogs) && keepLogs >= 0)) {
      throw new ValidationError('keepLogs must be a whole number');
    }
    await this.scope.backend.clearLogs(this.id, keepLogs);
  }

  async updateData(data: DataType): Promise<void> {
    const json = serializeData(data, this.opts.sizeLimit);
    await this.scope.backend.updateData(this.id, json);
    this.data = data;
  }

  getState(): Promise<JobStateReply> {
    return this.scope.ops.getState(this.id);
  }

  async isCompleted() {
    return (await this.getState()) === 'completed';
  }
  async isFailed() {
    return (await this.getState()) === 'failed';
  }
  async isDelayed() {
    return (await this.getState()) === 'delayed';
  }
  async isActive() {
    return (await this.getState()) === 'active';
  }
  async isWaiting() {
    return (await this.getState()) === 'waiting';
  }
  async isPrioritized() {
    return (await this.getState()) === 'prioritized';
  }
  async isWaitingChildren() {
    return (await this.getState()) === 'waiting-children';
  }

  /** Re-runs a completed or failed job. */
  async retry(
    state: 'completed' | 'failed' = 'failed',
    opts: { resetAttemptsMade?: boolean; resetAttemptsStarted?: boolean } = {},
  ): Promise<void> {
    await this.scope.ops.reprocessJob(this.id, state, {
      lifo: this.opts.lifo === true,
      resetAttemptsMade: opts.resetAttemptsMade ?? false,
      resetAttemptsStarted: opts.resetAttemptsStarted ?? false,
    });
    this.failedReason = undefined;
    this.finishedOn = undefined;
    this.processedOn = undefined;
    this.returnvalue = null;
    if (opts.resetAttemptsMade) this.attemptsMade = 0;
    if (opts.resetAttemptsStarted) this.attemptsStarted = 0;
  }

  /** Runs a delayed job now. */
  async promote(): Promise<void> {
    await this.scope.ops.promoteJob(this.id);
    this.delay = 0;
  }

  /** Removes the job (and its children when asked). Throws if a worker holds its lock. */
  async remove(opts: { removeChildren?: boolean } = {}): Promise<void> {
    const removed = await this.scope.ops.removeJob(this.id, opts.removeChildren ?? true);
    if (removed === 0) {
      throw new JobNotFoundError(
        `Job ${this.id} could not be removed because it is locked by another worker`,
      );
    }
  }

  async changePriority(opts: { priority?: number; lifo?: boolean }): Promise<void> {
    const priority = opts.priority ?? 0;
    // The same check as at add: a grouped job has no priority (its group's line is FIFO).
    validateJobOptions({ priority, group: this.opts.group });
    await this.scope.ops.changePriority(this.id, priority, opts.lifo ?? false);
    this.priority = priority;
  }

  async changeDelay(delay: number): Promise<void> {
    validateJobOptions({ delay });
    await this.scope.ops.changeDelay(this.id, delay);
    this.delay = delay;
  }

  /**
   * From a processor: postpone this job until `timestamp` (ms) without using an attempt, then
   * throw DelayedError so the worker leaves it there.
   */
  async moveToDelayed(timestamp: number, token = this.token): Promise<void> {
    if (!token) throw new ValidationError('moveToDelayed needs the lock token of the running job');
    await this.scope.backend.postponeJob(this.id, token, timestamp);
    movedByProcessor.add(this);
    this.delay = Math.max(0, timestamp - Date.now());
  }

  /**
   * From a processor: put this job back at the front of the wait list without using an attempt,
   * then throw WaitingError. Returns the rate limit's remaining ms (0 when none).
   */
  async moveToWait(token = this.token): Promise<number> {
    if (!token) throw new ValidationError('moveToWait needs the lock token of the running job');
    const ttl = await this.scope.backend.moveActiveJobToWait(this.id, token);
    movedByProcessor.add(this);
    return ttl;
  }

  /**
   * Manual processing: completes the job fetched with `token`. With fetchNext (the default, as
   * in bullmq) and a Worker scope, the same call locks the next job with the same token and
   * returns it as [JobJson, id, rateLimitMs, nextDelayedTs] (Job.fromJSON builds it).
   */
  moveToCompleted(
    returnValue: ReturnType,
    token: string,
    fetchNext = true,
  ): Promise<NextJobTuple | undefined> {
    return completeJob(this.scope, this, returnValue, token, fetchNext);
  }

  /**
   * Manual processing: a failed attempt, handled as when a processor throws (retry with the
   * job's backoff while attempts remain, else failed). fetchNext as in moveToCompleted
   * (default false, as in bullmq).
   */
  moveToFailed<E extends Error>(
    err: E,
    token: string,
    fetchNext = false,
  ): Promise<NextJobTuple | undefined> {
    return failJob(this.scope, this, err, token, fetchNext);
  }

  /** Renews this job's lock held with `token` for `duration` ms: 1 when held, else 0. */
  extendLock(token: string, duration: number): Promise<number> {
    return extendJobLock(this.scope, this, token, duration);
  }

  // ---- children (flows): nothing is read until asked; each call is one round trip ----

  /** Return values of the completed children, by child key (`<prefix>:<queue>:<id>`). */
  getChildrenValues<ChildReturnType = unknown>(): Promise<Record<string, ChildReturnType>> {
    return getChildrenValues(this.scope.ops, this.id) as Promise<Record<string, ChildReturnType>>;
  }

  /** Failure reasons of the children whose failure this job was told to ignore or continue past. */
  getIgnoredChildrenFailures(): Promise<Record<string, string>> {
    return this.scope.ops.getIgnoredChildrenFailures(this.id);
  }

  /** @deprecated bullmq's old name of getIgnoredChildrenFailures; the same data. */
  getFailedChildrenValues(): Promise<Record<string, string>> {
    return this.getIgnoredChildrenFailures();
  }

  /** The children by kind: all of them without options, else one page of each kind asked for. */
  getDependencies(opts: DependenciesOpts = {}): Promise<Dependencies> {
    return getDependencies(this.scope.ops, this.id, opts);
  }

  /** How many children of each kind asked for (all four kinds when none is). */
  getDependenciesCount(opts: DependencyCountsOpts = {}): Promise<DependencyCounts> {
    return getDependenciesCount(this.scope.ops, this.id, opts);
  }

  /**
   * Removes this parent's children that have not run yet (with their own children), in bounded
   * steps; running and failed children stay. A parent left with none is released.
   */
  async removeUnprocessedChildren(): Promise<void> {
    await this.scope.ops.removeUnprocessedChildren(this.id);
  }

  /**
   * From a processor: park this job in waiting-children until its pending children (or the one
   * `child`) finish, then throw WaitingChildrenError. Returns false, leaving the job running,
   * when nothing is pending. Throws FailedChildrenError when a child failed this job.
   */
  async moveToWaitingChildren(
    token = this.token,
    opts: { child?: { id: string; queue: string } } = {},
  ): Promise<boolean> {
    if (!token) {
      throw new ValidationError('moveToWaitingChildren needs the lock token of the running job');
    }
    const parked = await this.scope.ops.moveToWaitingChildren(
      this.id,
      token,
      childKeyOf(opts.child),
    );
    if (parked) movedByProcessor.add(this);
    return parked;
  }

  /**
   * Stops this job being a pending dependency of its parent (which runs now if this was its last
   * one). True when that link existed and was removed; the job then has no parent.
   */
  async removeChildDependency(): Promise<boolean> {
    const removed = await this.scope.ops.removeChildDependency(this.id, this.parentKey);
    if (removed) {
      this.parentKey = undefined;
      this.parent = undefined;
    }
    return removed;
  }

  /** Ends this job's deduplication window if the job still owns it; true when it did. */
  async removeDeduplicationKey(): Promise<boolean> {
    if (!this.deduplicationId) return false;
    return (await this.scope.backend.removeDeduplicationKeyOf(this.deduplicationId, this.id)) === 1;
  }

  /** From a processor: no more retries for this job, whatever its attempts say. */
  discard(): void {
    this.discarded = true;
  }

  isDiscarded(): boolean {
    return this.discarded;
  }

  /** The W3C trace context the job carries, if any. */
  getTraceContext(): TraceContext | undefined {
    return this.traceparent ? TraceContext.of(this.traceparent, this.tracestate) : undefined;
  }

  /**
   * Resolves with the return value once the job completes; rejects with JobFailedError (job id,
   * failure reason, stack traces) once it fails for good, with JobNotFoundError when the job is
   * gone (removed, e.g. by removeOnComplete, before its outcome could be read), or with
   * TimeoutError after ttl ms. Listens first, then reads Redis, so an outcome that lands in
   * between is never missed.
   */
  async waitUntilFinished(queueEvents: FinishedEventsSource, ttl?: number): Promise<ReturnType> {
    await queueEvents.waitUntilReady?.();
    return new Promise<ReturnType>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const onCompleted = (event: { returnvalue: unknown }) =>
        finish(() => resolve(event.returnvalue as ReturnType));
      const onFailed = (event: { failedReason: string }) => {
        // Settled now (no second outcome); the stack traces are read on the way out.
        finish(() =>
          this.readStacktrace().then((traces) =>
            reject(new JobFailedError(this.id, event.failedReason, traces)),
          ),
        );
      };
      const finish = (settle: () => unknown) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        queueEvents.off(`completed:${this.id}`, onCompleted as never);
        queueEvents.off(`failed:${this.id}`, onFailed as never);
        settle();
      };
      queueEvents.on(`completed:${this.id}`, onCompleted as never);
      queueEvents.on(`failed:${this.id}`, onFailed as never);
      if (ttl !== undefined) {
        timer = setTimeout(
          () =>
            finish(() =>
              reject(new TimeoutError(`Job ${this.id} did not finish within ${ttl} ms`)),
            ),
          ttl,
        );
      }
      this.readOutcome()
        .then((outcome) => {
          if (outcome?.state === 'completed') onCompleted({ returnvalue: outcome.value });
          else if (outcome?.state === 'failed') onFailed({ failedReason: String(outcome.value) });
          else if (outcome?.state === 'unknown') {
            finish(() =>
              reject(
                new JobNotFoundError(
                  `Job ${this.id} no longer exists (removed, e.g. by removeOnComplete or ` +
                    'removeOnFail): its outcome cannot be read',
                ),
              ),
            );
          }
        })
        .catch((error: unknown) => finish(() => reject(error)));
    });
  }

  private async readOutcome(): Promise<
    { state: 'completed' | 'failed' | 'unknown'; value: unknown } | undefined
  > {
    const state = await this.scope.ops.getState(this.id);
    if (state === 'unknown') return { state, value: undefined };
    if (state !== 'completed' && state !== 'failed') return undefined;
    const hash = (await this.scope.backend.getJobHash(this.id)) ?? {};
    return state === 'completed'
      ? { state, value: parseJson(hash.returnvalue, null) }
      : { state, value: hash.failedReason ?? '' };
  }

  /** The stored stack traces, or none when the job is gone or Redis cannot be read. */
  private async readStacktrace(): Promise<string[]> {
    try {
      const hash = await this.scope.backend.getJobHash(this.id);
      const traces = parseJson<unknown>(hash?.stacktrace, []);
      return Array.isArray(traces) ? traces.map(String) : [];
    } catch {
      return [];
    }
  }
}

/** Job names seen, each kept once: a queue's jobs mostly share a handful of names. */
const names = new Map<string, string>();
const MAX_SHARED_NAMES = 1_000;

/**
 * The one copy of a job name read from Redis: every hash read brings its own string, which a
 * worker would otherwise keep once per job it runs. Bounded, so that a queue of ever-new names
 * costs no more than their first thousand.
 */
function sharedName(name: string): string {
  const shared = names.get(name);
  if (shared !== undefined) return shared;
  if (names.size < MAX_SHARED_NAMES && name.length <= 64) names.set(name, name);
  return name;
}

/** A JSON array of strings as written, else undefined (a foreign writer's field is not ours). */
function stringArray(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string')
    ? (value as string[])
    : undefined;
}
