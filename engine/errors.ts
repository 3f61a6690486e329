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

/** Fail the job now, without further retries. */
export class UnrecoverableError extends OxmqError {
  readonly code = 'UNRECOVERABLE';
  constructor(message = 'bullmq:unrecoverable') {
    super(message);
  }
}

/** The processor moved its job to delayed (job.moveToDelayed); the worker does nothing more. */
export class DelayedError extends OxmqError {
  readonly code = 'MOVED_TO_DELAYED';
  constructor(message = 'bullmq:movedToDelayed') {
    super(message);
  }
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
/** An operation on a closed Queue, Worker or QueueEvents. */
export class ClosedError extends OxmqError {
  readonly code = 'CLOSED';
}
/** waitUntilFinished gave up. */
export class TimeoutError extends OxmqError {
  readonly code = 'TIMEOUT';
}
/** A script returned something the engine does not understand. */
export class UnexpectedReplyError extends OxmqError {
  readonly code = 'UNEXPECTED_REPLY';
}
