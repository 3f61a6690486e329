/**
 * Typed errors. Processor signals (thrown by user code to steer the worker) are kept apart from
 * engine failures (thrown by the engine when Redis refuses an operation or input is invalid).
 * Processor-signal messages equal bullmq's so either library recognises them.
 */

export abstract class OxmqError extends Error {
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

// ---- processor signals -------------------------------------------------------------------

/** bullmq's signal messages, exported under its names; either library recognises them. */
export const UNRECOVERABLE_ERROR = 'bullmq:unrecoverable';
export const DELAYED_ERROR = 'bullmq:movedToDelayed';
export const WAITING_ERROR = 'bullmq:movedToWait';
export const WAITING_CHILDREN_ERROR = 'bullmq:movedToWaitingChildren';
export const RATE_LIMIT_ERROR = 'bullmq:rateLimitExceeded';
export const CONNECTION_CLOSED_ERROR_MSG = 'Connection is closed.';

/** Fail the job now, without further retries. */
export class UnrecoverableError extends OxmqError {
  readonly code = 'UNRECOVERABLE';
  constructor(message = 'bullmq:unrecoverable') {
    super(message);
  }
}

/**
 * How an attempt ends when a cancel request through Redis (queue.cancelJob, the console) reached
 * it and its processor then gave up (or its sandbox child was killed): the job fails for good
 * with `Cancelled: <reason>`, whatever attempts remain. `cause` is what the processor threw.
 */
export class JobCancelledError extends OxmqError {
  readonly code = 'JOB_CANCELLED';
  constructor(
    readonly reason: string,
    readonly forced = false,
    options?: { cause?: unknown },
  ) {
    const what = forced ? 'Cancelled (force stop)' : 'Cancelled';
    super(reason === '' ? what : `${what}: ${reason}`);
    if (options && 'cause' in options) this.cause = options.cause;
  }
}

/** Where a DelayedError moves its job: `delay` ms from now, or `until` a timestamp (ms). */
export interface DelayedErrorMove {
  delay?: number;
  until?: number;
  message?: string;
}

/**
 * Two ways to use it. bullmq's: call job.moveToDelayed(timestamp, token), then throw
 * `new DelayedError()`; the worker does nothing more. OxMQ's: throw
 * `new DelayedError({ delay: 10_000 })` (or `{ until: timestamp }`, or a bare number of ms) and
 * the worker moves the job itself, without using an attempt. A DelayedError that neither follows
 * a move nor carries one fails the job with a message saying so.
 */
export class DelayedError extends OxmqError {
  readonly code = 'MOVED_TO_DELAYED';
  /** Due time (ms since epoch) of the move this error carries, if it carries one. */
  readonly until?: number;
  constructor(messageOrMove: string | number | DelayedErrorMove = 'bullmq:movedToDelayed') {
    const move =
      typeof messageOrMove === 'number'
        ? { delay: messageOrMove }
        : typeof messageOrMove === 'object' && messageOrMove !== null
          ? messageOrMove
          : undefined;
    super(
      typeof messageOrMove === 'string'
        ? messageOrMove
        : (move?.message ?? 'bullmq:movedToDelayed'),
    );
    if (move) this.until = dueTimeOf(move);
  }
}

function dueTimeOf(move: DelayedErrorMove): number {
  const { delay, until } = move;
  if ((delay === undefined) === (until === undefined)) {
    throw new ValidationError(
      'DelayedError needs exactly one of { delay } (ms) or { until } (ms timestamp)',
    );
  }
  const value = (delay ?? until) as unknown;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ValidationError(
      `DelayedError ${delay !== undefined ? 'delay' : 'until'} must be a finite number of ms (0 or more)`,
    );
  }
  return delay !== undefined ? Date.now() + delay : value;
}

/** The processor moved its job back to wait; the worker does nothing more. */
export class WaitingError extends OxmqError {
  readonly code = 'MOVED_TO_WAIT';
  constructor(message = 'bullmq:movedToWait') {
    super(message);
  }
}

/** The processor parked its job until its children finish; the worker does nothing more. */
export class WaitingChildrenError extends OxmqError {
  readonly code = 'MOVED_TO_WAITING_CHILDREN';
  constructor(message = 'bullmq:movedToWaitingChildren') {
    super(message);
  }
}

/** The processor hit a rate limit (after queue.rateLimit): the job goes back to wait, no attempt used. */
export class RateLimitError extends OxmqError {
  readonly code = 'RATE_LIMITED';
  constructor(message = 'bullmq:rateLimitExceeded') {
    super(message);
  }
}

// ---- engine failures ----------------------------------------------------------------------

/** Input that the engine refuses before touching Redis. */
export class ValidationError extends OxmqError {
  readonly code = 'VALIDATION';
}

export class JobNotFoundError extends OxmqError {
  readonly code = 'JOB_NOT_FOUND';
}
export class LockNotFoundError extends OxmqError {
  readonly code = 'LOCK_NOT_FOUND';
}
export class JobNotInStateError extends OxmqError {
  readonly code = 'JOB_NOT_IN_STATE';
}
export class PendingDependenciesError extends OxmqError {
  readonly code = 'PENDING_DEPENDENCIES';
}
export class ParentJobNotFoundError extends OxmqError {
  readonly code = 'PARENT_NOT_FOUND';
}
export class LockMismatchError extends OxmqError {
  readonly code = 'LOCK_MISMATCH';
}
export class ParentJobCannotBeReplacedError extends OxmqError {
  readonly code = 'PARENT_CANNOT_BE_REPLACED';
}
export class JobBelongsToSchedulerError extends OxmqError {
  readonly code = 'JOB_BELONGS_TO_SCHEDULER';
}
export class FailedChildrenError extends OxmqError {
  readonly code = 'FAILED_CHILDREN';
}
/** A queue operation that needs a precondition (e.g. obliterate needs a paused queue). */
export class QueueStateError extends OxmqError {
  readonly code = 'QUEUE_STATE';
}
/**
 * bullmq's name for a command sent on a closed connection, exported so code that tests for it
 * compiles. OxMQ does not raise it: its closed objects raise ClosedError, and a closed
 * connection surfaces ioredis's own error (message CONNECTION_CLOSED_ERROR_MSG).
 */
export class ConnectionClosedError extends OxmqError {
  readonly code = 'CONNECTION_CLOSED';
  constructor(
    message = CONNECTION_CLOSED_ERROR_MSG,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
/** An operation on a closed Queue, Worker or QueueEvents. */
export class ClosedError extends OxmqError {
  readonly code = 'CLOSED';
}
/**
 * What job.waitUntilFinished rejects with when the job failed for good: the message is the
 * failure reason (as bullmq's plain Error), with the job id and its stored stack traces.
 */
export class JobFailedError extends OxmqError {
  readonly code = 'JOB_FAILED';
  constructor(
    readonly jobId: string,
    readonly failedReason: string,
    readonly stacktrace: string[] = [],
  ) {
    super(failedReason);
  }
}
/** waitUntilFinished gave up. */
export class TimeoutError extends OxmqError {
  readonly code = 'TIMEOUT';
}
/**
 * A processor threw DelayedError, WaitingError or WaitingChildrenError without moving its job
 * first: the job fails with this rather than sit in active until the stalled checker finds it.
 */
export class UnmovedJobError extends OxmqError {
  readonly code = 'JOB_NOT_MOVED';
}
/**
 * Redis refused a write because its memory is at `maxmemory` and its policy is `noeviction`
 * (the policy OxMQ needs, docs/reliability.md). Nothing of the refused operation was written:
 * Redis refuses a script before its first write. Writes succeed again once memory is freed
 * (jobs completed and removed, old jobs cleaned) or `maxmemory` is raised.
 */
export class RedisOutOfMemoryError extends OxmqError {
  readonly code = 'REDIS_OOM';
  constructor(
    message = "Redis refused the write: its memory is at 'maxmemory' and its policy is noeviction. " +
      'Nothing was written. Free memory (remove or clean finished jobs, e.g. removeOnComplete) ' +
      'or raise maxmemory, then retry.',
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
/** A script returned something the engine does not understand. */
export class UnexpectedReplyError extends OxmqError {
  readonly code = 'UNEXPECTED_REPLY';
}

// bullmq's older names of the processor signals, kept so code written with them runs unchanged.
export const DelayedException = DelayedError;
export type DelayedException = DelayedError;
export const WaitingException = WaitingError;
export type WaitingException = WaitingError;
export const WaitingChildrenException = WaitingChildrenError;
export type WaitingChildrenException = WaitingChildrenError;
