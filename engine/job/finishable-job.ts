/**
 * The part of a Job that finishing it by hand (manual-finish.ts) and planning a failure
 * (engine/worker/failure-plan.ts) read and update. Job implements it; naming it here keeps
 * those modules from importing job.ts, which imports them.
 */
import type { JobsOptions } from './options';

export interface FinishableJob {
  readonly id: string;
  opts: JobsOptions;
  returnvalue: unknown;
  finishedOn?: number;
  attemptsMade: number;
  failedReason?: string;
  stacktrace: string[];
  delay: number;
  isDiscarded(): boolean;
}
