/**
 * A worker's heartbeat: every `intervalMs` one call to the storage's WorkerRegistry refreshes the
 * worker's record (who and where it is, what it runs, its counters) with a lifetime of three
 * intervals, and brings back what was asked of it meanwhile: a quiet / resume command and cancel
 * requests for its jobs. A cancel request also wakes the worker (its wake key, marker-waiter.ts), which then beats
 * at once (beatNow); the periodic beat is the fallback when a wake went astray. A worker that
 * dies stops beating and its record expires; close() deletes it.
 */
import { hostname } from 'node:os';
import type { WorkerRegistry } from '../backend/worker-registry';
import { OXMQ_VERSION } from '../version';
import type { CancelRequest, WorkerCommand } from './heartbeat-keys';

/** Most job ids one record lists (the count of jobs in flight is always exact). */
export const HEARTBEAT_MAX_LISTED_JOBS = 100;
/** A record lives this many intervals without a beat. */
const HEARTBEAT_TTL_INTERVALS = 3;
/**
 * How long the index keeps the entry of a worker that stopped beating without closing (killed,
 * its machine gone), after its last beat: the window in which a console reports it missing.
 */
export const HEARTBEAT_INDEX_KEEP_MS = 15 * 60_000;

/** What the worker is doing now, read at each beat. */
interface HeartbeatSnapshot {
  concurrency: number;
  /** Ids of the jobs in flight, at most HEARTBEAT_MAX_LISTED_JOBS. */
  jobIds: string[];
  /** Number of jobs in flight. */
  active: number;
  quiet: boolean;
  /** Paused locally (worker.pause()). */
  paused: boolean;
  /** The processor runs in sandbox children: a force stop can kill a job's (the console asks). */
  canForceStop?: boolean;
}

export interface HeartbeatConfig {
  workerId: string;
  /** The queue the worker serves (its record says so). */
  queueName: string;
  prefix: string;
  /** The Worker's `name` option, if any. */
  workerName?: string;
  intervalMs: number;
  /**
   * The Worker's `limiter` option. It never reaches the queue's meta (the worker hands it to
   * each fetch), so the record is the only place a console can learn it from.
   */
  limiter?: { max: number; duration: number };
}

export interface HeartbeatHandlers {
  snapshot(): HeartbeatSnapshot;
  /** A cancel request for one of the worker's jobs (it may have finished meanwhile). */
  cancel(jobId: string, request: CancelRequest): void;
  /** A command that changes the quiet state; the heartbeat beats again once it is applied. */
  setQuiet(quiet: boolean): void;
  onError(error: unknown): void;
}

export interface BeatResult {
  command?: WorkerCommand;
  /** Ids of the jobs a cancel request came for. */
  cancelRequests: string[];
}

export class WorkerHeartbeat {
  private timer?: NodeJS.Timeout;
  private running = false;
  /** The beat under way, so close() deletes the record after it rather than before. */
  private pending?: Promise<unknown>;
  /** A beat is under way (the timer is not armed meanwhile). */
  private beating = false;
  /** beatNow() was called during a beat: beat again as soon as it ends. */
  private beatAgain = false;
  private readonly startedAt = Date.now();
  completed = 0;
  failed = 0;
  lockRenewalFailures = 0;

  constructor(
    private readonly registry: WorkerRegistry,
    private readonly config: HeartbeatConfig,
    private readonly handlers: HeartbeatHandlers,
  ) {}

  get ttlMs(): number {
    return this.config.intervalMs * HEARTBEAT_TTL_INTERVALS;
  }

  /** Beats now, then every interval until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick(0);
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Beats as soon as possible rather than at the next interval: the worker was woken because
   * something waits for it in Redis (a cancel request). A call during a beat beats once more
   * after it, since the request may have landed after that beat read the requests.
   */
  beatNow(): void {
    if (!this.running) return;
    if (this.beating) {
      this.beatAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.tick(0);
  }

  private tick(delay: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.beating = true;
      this.pending = this.runOnce()
        .catch((error: unknown) => {
          if (this.running) this.handlers.onError(error);
        })
        .finally(() => {
          this.beating = false;
          const again = this.beatAgain;
          this.beatAgain = false;
          this.tick(again ? 0 : this.config.intervalMs);
        });
    }, delay);
    this.timer.unref();
  }

  /** One beat: writes the record, then applies the command and the cancel requests it got. */
  async runOnce(now = Date.now()): Promise<BeatResult> {
    const { command, cancels } = await this.beat(now);
    for (const { jobId, request } of cancels) this.handlers.cancel(jobId, request);
    const quiet = command === 'quiet';
    if (command && quiet !== this.handlers.snapshot().quiet) {
      this.handlers.setQuiet(quiet);
      // The record shows the new state now rather than an interval later.
      await this.beat(Date.now());
    }
    return { ...(command && { command }), cancelRequests: cancels.map(({ jobId }) => jobId) };
  }

  private beat(now: number) {
    const snapshot = this.handlers.snapshot();
    const fields = {
      id: this.config.workerId,
      name: this.config.workerName ?? '',
      queue: this.config.queueName,
      prefix: this.config.prefix,
      host: hostname(),
      pid: process.pid,
      version: OXMQ_VERSION,
      concurrency: snapshot.concurrency,
      active: snapshot.active,
      jobs: JSON.stringify(snapshot.jobIds.slice(0, HEARTBEAT_MAX_LISTED_JOBS)),
      completed: this.completed,
      failed: this.failed,
      lockRenewalFailures: this.lockRenewalFailures,
      quiet: snapshot.quiet ? 1 : 0,
      paused: snapshot.paused ? 1 : 0,
      forceStop: snapshot.canForceStop ? 1 : 0,
      startedAt: this.startedAt,
      lastHeartbeat: now,
      interval: this.config.intervalMs,
      limiterMax: this.config.limiter?.max ?? '',
      limiterDuration: this.config.limiter?.duration ?? '',
    };
    return this.registry.beat(this.config.workerId, stringValues(fields), this.ttlMs, now);
  }

  /** Stops beating and deletes the record, its pending requests, wake key and index entry. */
  async close(): Promise<void> {
    this.stop();
    await this.pending;
    await this.registry.remove(this.config.workerId);
  }
}

function stringValues(fields: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, String(value)]));
}
