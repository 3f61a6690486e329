/**
 * Argument checks of the storage interfaces, shared by every storage. Each check runs before
 * anything is written, so bad input never leaves a queue half changed.
 */
import { DEFAULTS } from '../defaults';
import { ValidationError } from '../errors';
import type { CleanState, JobState } from './queue-operations';

const JOB_STATES: ReadonlySet<string> = new Set<JobState>([
  'completed',
  'failed',
  'delayed',
  'active',
  'wait',
  'waiting',
  'paused',
  'prioritized',
  'waiting-children',
]);

const CLEAN_STATES: ReadonlySet<string> = new Set<CleanState>([
  'completed',
  'failed',
  'delayed',
  'wait',
  'paused',
  'active',
  'prioritized',
]);

export function checkJobStates(states: readonly string[]): asserts states is JobState[] {
  if (!Array.isArray(states)) throw new ValidationError('Job states must be an array');
  for (const state of states) {
    if (!JOB_STATES.has(state)) throw new ValidationError(`Unknown job state "${String(state)}"`);
  }
}

export function checkCleanState(state: string): asserts state is CleanState {
  if (!CLEAN_STATES.has(state)) throw new ValidationError(`Cannot clean state "${String(state)}"`);
}

export function checkInteger(
  name: string,
  value: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(
      `${name} must be an integer in ${min}..${max} (got ${String(value)})`,
    );
  }
}

/** A finite number of milliseconds >= min, rounded to whole ms. */
export function checkMillis(name: string, value: number, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new ValidationError(`${name} must be a finite number >= ${min} (got ${String(value)})`);
  }
  return Math.round(value);
}

export function checkJobId(jobId: string): void {
  if (typeof jobId !== 'string' || jobId.length === 0) {
    throw new ValidationError('Job id must be a non-empty string');
  }
}

export function checkPriority(priority: number): void {
  checkInteger('priority', priority, 0, DEFAULTS.maxPriority);
}

/** [start, end] of a listing: start >= 0, end >= -1 (-1 means "to the end"). */
export function checkRange(start: number, end: number): void {
  checkInteger('start', start, 0);
  checkInteger('end', end, -1);
}

/**
 * [start, end] as Redis list/zset indexes, where negatives count from the end (-1 the last),
 * as bullmq's getJobs, getRanges and getJobLogs accept them.
 */
export function checkIndexRange(start: number, end: number): void {
  checkInteger('start', start, Number.MIN_SAFE_INTEGER);
  checkInteger('end', end, Number.MIN_SAFE_INTEGER);
}
