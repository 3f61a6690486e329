/**
 * The storage of one queue's job schedulers, as JobScheduler (engine/scheduler/job-scheduler.ts)
 * and the admin panels use it. A scheduler is a definition (the stored hash, bullmq's `Q
 * repeat:<id>` layout, docs/redis-keys.md) and a next run; its pending iteration is an ordinary
 * job. The writes are atomic: an iteration is created with its scheduler's bookkeeping or not at
 * all. The Redis implementation is engine/backend/redis/scheduler-store.ts.
 */
import { OxmqError } from '../errors';
import type { SchedulerDefinition } from '../scheduler/repeat-options';

/** Cron scheduler: the next iteration's id belongs to a job that already exists (bullmq -10). */
export class JobSchedulerIdCollisionError extends OxmqError {
  readonly code = 'SCHEDULER_JOB_ID_COLLISION';
}

/** Every scheduler: 32 consecutive slots are taken by existing jobs (bullmq -11). */
export class JobSchedulerSlotsBusyError extends OxmqError {
  readonly code = 'SCHEDULER_JOB_SLOTS_BUSY';
}

/** Resume or edit of a scheduler that is not there (any more). */
export class JobSchedulerNotFoundError extends OxmqError {
  readonly code = 'SCHEDULER_NOT_FOUND';
}

/** Resume of a running scheduler, or edit of a paused one. */
export class JobSchedulerPausedStateError extends OxmqError {
  readonly code = 'SCHEDULER_PAUSED_STATE';
}

/** OxMQ-only fields of `Q repeat:<id>` while a scheduler is paused (bullmq ignores them). */
export const PAUSED_AT_FIELD = 'oxmq.pausedAt';
export const NEXT_COUNT_FIELD = 'oxmq.nextCount';

/** Arguments of addJobScheduler: opts tables already in stored (short-key) form. */
export interface UpsertRequest {
  id: string;
  /** Cron only: the first run, computed client-side. */
  nextMillis?: number;
  scheduler: SchedulerDefinition;
  /** Template data as JSON text. */
  data: string;
  templateOpts: Record<string, unknown>;
  jobOpts: Record<string, unknown>;
  /** Write only if the scheduler exists and is running / paused (edit, resume). */
  require?: 'running' | 'paused';
}

export interface NextIterationRequest {
  id: string;
  /** Id of the iteration a worker just fetched. */
  producerId: string;
  /** Cron only. */
  nextMillis?: number;
  opts: Record<string, unknown>;
}

/** Why updateJobScheduler created nothing (see the script's header). */
export type NextIterationOutcome =
  | { created: true; jobId: string }
  | { created: false; reason: 'gone' | 'not-current' | 'taken' | 'ended' | 'paused' };

export interface StoredScheduler {
  hash: Record<string, string>;
  /** Next run (score in `Q repeat`). */
  next: number;
}

export interface SchedulerStorage {
  /**
   * Creates or replaces a scheduler and its pending iteration; returns the iteration's id and
   * delay. Throws the JobScheduler* errors above, having written nothing.
   */
  upsert(request: UpsertRequest, now: number): Promise<{ jobId: string; delay: number }>;
  /** Creates the iteration after `producerId`, when that one is still the scheduler's current. */
  nextIteration(request: NextIterationRequest, now: number): Promise<NextIterationOutcome>;
  /** Removes the scheduler and its pending iteration; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Takes the pending iteration out and marks the scheduler paused. */
  pause(id: string, now: number): Promise<'paused' | 'already-paused' | 'missing'>;
  /** The scheduler's hash and next run, read together; undefined unless both exist. */
  get(id: string): Promise<StoredScheduler | undefined>;
  /** Schedulers by next run (ranks start..end inclusive), skipping ids without a definition. */
  range(start: number, end: number, asc: boolean): Promise<(StoredScheduler & { id: string })[]>;
  count(): Promise<number>;
  /** True when `id` is a v6 scheduler (its hash has `ic`), not a legacy v5 repeatable. */
  isScheduler(id: string): Promise<boolean>;
  /** The stored definition, for iterations whose opts lack `repeat`. */
  definition(id: string): Promise<Record<string, string>>;
}
