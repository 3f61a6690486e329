/**
 * The state of a closeGracefully call (an OxMQ addition, see worker-base.ts): its deadline, the
 * jobs finished since it was called and the jobs given back to wait at the deadline.
 */
import type { Deadline } from './deadline';

export interface GracefulClose {
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
