import {
  FailedChildrenError,
  JobBelongsToSchedulerError,
  JobNotFoundError,
  JobNotInStateError,
  LockMismatchError,
  LockNotFoundError,
  OxmqError,
  ParentJobCannotBeReplacedError,
  ParentJobNotFoundError,
  PendingDependenciesError,
  UnexpectedReplyError,
} from '../errors';
import type { ScriptName } from './script-keys';

/** The script a reply came from, as error messages name it: `moveToFinished(failed)`. */
export type ScriptLabel = ScriptName | `${ScriptName}(${string})`;

/**
 * The one place where a script's negative reply becomes a typed error. The codes are bullmq's,
 * so our scripts and theirs agree on what each number means.
 */
export function scriptError(code: number, jobId: string, command: ScriptLabel): OxmqError {
  switch (code) {
    case -1:
      return new JobNotFoundError(`Missing key for job ${jobId}. ${command}`);
    case -2:
      return new LockNotFoundError(`Missing lock for job ${jobId}. ${command}`);
    case -3:
      return new JobNotInStateError(`Job ${jobId} is not in the expected state. ${command}`);
    case -4:
      return new PendingDependenciesError(`Job ${jobId} has pending dependencies. ${command}`);
    case -5:
      return new ParentJobNotFoundError(`Missing key for parent job of ${jobId}. ${command}`);
    case -6:
      return new LockMismatchError(`Lock mismatch for job ${jobId}. ${command}`);
    case -7:
      return new ParentJobCannotBeReplacedError(
        `The parent job of ${jobId} cannot be replaced. ${command}`,
      );
    case -8:
      return new JobBelongsToSchedulerError(
        `Job ${jobId} belongs to a job scheduler and cannot be removed directly. ${command}`,
      );
    case -9:
      return new FailedChildrenError(
        `Cannot complete job ${jobId} because it has at least one failed child. ${command}`,
      );
    default:
      return new UnexpectedReplyError(`Unknown reply ${code} for job ${jobId}. ${command}`);
  }
}

/** Throws the typed error when a script replied with a negative integer. */
export function throwIfErrorCode(reply: unknown, jobId: string, command: ScriptLabel): void {
  if (typeof reply === 'number' && reply < 0) {
    throw scriptError(reply, jobId, command);
  }
}
