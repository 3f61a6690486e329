/**
 * Fixture: a sandboxed processor that always throws: an UnrecoverableError (the engine's own
 * class, loaded in the child) when `data.unrecoverable`, else a plain Error naming the attempt.
 */
import { UnrecoverableError } from 'oxmq';

export default async function throws(job: {
  attemptsMade: number;
  data: { unrecoverable?: boolean };
}) {
  if (job.data.unrecoverable) throw new UnrecoverableError('give up at once');
  throw new Error(`boom on attempt ${job.attemptsMade + 1}`);
}
