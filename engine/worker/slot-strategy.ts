/**
 * What a slot of the worker's slot loop (slot-loop.ts) runs, and how it fetches it: one job at a
 * time (single-job-strategy.ts, the Worker) or a batch of jobs (batch-strategy.ts, the
 * BatchWorker). The loop owns slots, pause, quiet, close and rate-limit waits; the strategy owns
 * the unit of work.
 */
import type { FetchResult } from '../backend/queue-backend';

/** Why a fetch found nothing: rate limited, or when the next delayed job is due. */
type NoWork = Extract<FetchResult, { kind: 'none' }>;

/** What a fetch found: work for one slot each, or why there is none. */
export type SlotFetch<Work> = { kind: 'work'; works: Work[] } | NoWork;

/** Where a slot's unit reports its end (slot-loop.ts): the next unit, if any, or a failure. */
export interface SlotEnd<Work> {
  next(work: Work | undefined): void;
  failed(error: unknown): void;
}

export interface SlotStrategy<Work extends object> {
  /** One fetch for up to `freeSlots` slots, locking with `token`. */
  fetch(token: string, freeSlots: number): Promise<SlotFetch<Work>>;
  /** Runs one unit and records its outcome; returns the next unit when finishing fetched one. */
  run(work: Work): Promise<Work | undefined>;
  /**
   * run() reporting to `slot` rather than through a promise; the loop calls this one when the
   * strategy has it: at concurrency 10,000 the loop's `then` on every running unit's promise (a
   * reaction and a promise) is heap per in-flight job. Never throws.
   */
  start?(work: Work, slot: SlotEnd<Work>): void;
  /**
   * Puts a fetched unit back in line, unrun and without using an attempt: a unit that came with
   * a finishing call after the worker began to close (the call was sent before it did).
   */
  giveBack(work: Work): Promise<void>;
}
