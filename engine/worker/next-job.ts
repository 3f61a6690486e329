import type { FetchIdentity, FetchResult, QueueBackend } from '../backend/queue-backend';
import type { MarkerWaiter } from './marker-waiter';

/**
 * worker.getNextJob for manual processing: one fetch and, when asked to block and nothing is
 * there, one wait on the queue's marker (up to drainDelay, or until the next delayed job is due)
 * and one more fetch. Returns the job, or why there is none.
 */
export async function fetchForManualProcessing(
  backend: QueueBackend,
  waiter: MarkerWaiter,
  identity: FetchIdentity,
  block: boolean,
  stopped: () => boolean,
): Promise<FetchResult> {
  const first = await backend.fetchNextJob(identity);
  if (first.kind === 'job' || !block || first.rateLimitTtl > 0) return first;
  await waiter.wait(first.nextDelayedTs, first.held === true, 0);
  if (stopped()) return first;
  return backend.fetchNextJob(identity);
}
