/**
 * Why the memory storage refuses an operation on a job, as the typed errors every storage
 * throws for it (the Redis storage maps its scripts' codes to the same ones,
 * engine/scripts/error-codes.ts).
 */
import {
  FailedChildrenError,
  JobBelongsToSchedulerError,
  JobNotFoundError,
  JobNotInStateError,
  LockMismatchError,
  LockNotFoundError,
  type OxmqError,
  ParentJobCannotBeReplacedError,
  ParentJobNotFoundError,
  PendingDependenciesError,
} from '../../errors';

export type Refusal =
  | 'job-missing'
  | 'lock-missing'
  | 'not-in-state'
  | 'pending-children'
  | 'parent-missing'
  | 'lock-mismatch'
  | 'parent-taken'
  | 'scheduler-job'
  | 'failed-children';

export function refusal(reason: Refusal, jobId: string, operation: string): OxmqError {
  switch (reason) {
    case 'job-missing':
      return new JobNotFoundError(`Missing key for job ${jobId}. ${operation}`);
    case 'lock-missing':
      return new LockNotFoundError(`Missing lock for job ${jobId}. ${operation}`);
    case 'not-in-state':
      return new JobNotInStateError(`Job ${jobId} is not in the expected state. ${operation}`);
    case 'pending-children':
      return new PendingDependenciesError(`Job ${jobId} has pending dependencies. ${operation}`);
    case 'parent-missing':
      return new ParentJobNotFoundError(`Missing key for parent job of ${jobId}. ${operation}`);
    case 'lock-mismatch':
      return new LockMismatchError(`Lock mismatch for job ${jobId}. ${operation}`);
    case 'parent-taken':
      return new ParentJobCannotBeReplacedError(
        `The parent job of ${jobId} cannot be replaced. ${operation}`,
      );
    case 'scheduler-job':
      return new JobBelongsToSchedulerError(
        `Job ${jobId} belongs to a job scheduler and cannot be removed directly. ${operation}`,
      );
    case 'failed-children':
      return new FailedChildrenError(
        `Cannot complete job ${jobId} because it has at least one failed child. ${operation}`,
      );
  }
}
