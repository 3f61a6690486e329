/**
 * A cancel request in the memory storage (the semantics of lua/requestJobCancel-8.lua): left
 * for the live worker whose lock the active job carries, which is woken at once; recorded on
 * the job (`oxmq.cancel`) and in the event log.
 */
import { checkJobId } from '../operation-validation';
import type { CancelRequestOutcome } from '../queue-operations';
import { workerIdOfToken, workerWakeKey, WAKE_MEMBER } from '../../worker/heartbeat-keys';
import type { MemoryQueue } from './memory-queue';

interface CancelRecord {
  at: number;
  reason: string;
  attempt: number;
  forceAt?: number;
}

export function requestJobCancel(
  queue: MemoryQueue,
  jobId: string,
  reason: string,
  force: boolean,
): CancelRequestOutcome {
  checkJobId(jobId);
  if (!queue.active.includes(jobId)) return 'not-active';
  const token = queue.lockOwner(jobId);
  const workerId = token === undefined ? undefined : workerIdOfToken(token);
  const worker = workerId === undefined ? undefined : queue.workers.live(workerId);
  if (!worker) return 'held-by-bullmq';
  worker.cancels.set(jobId, { reason, force });
  queue.signals.signal(workerWakeKey(queue.keys, workerId!), WAKE_MEMBER.cancel, 0);

  // The request of the attempt now running: a second one (a force stop after a cancel) keeps
  // the time of the first, so the job's page counts its grace period from there.
  const hash = queue.jobs.get(jobId)!.hash;
  const attempt = Number(hash.ats) || 0;
  const now = Date.now();
  let record: CancelRecord = { at: now, reason, attempt };
  try {
    const previous = JSON.parse(hash['oxmq.cancel'] ?? '') as CancelRecord;
    if (previous.attempt === attempt && previous.at) record = { ...previous, attempt };
  } catch {
    // No earlier request (or an unreadable one): this one is the first.
  }
  if (force) record.forceAt = now;
  hash['oxmq.cancel'] = JSON.stringify(record);
  queue.emit('cancel-requested', { jobId, reason, force: force ? '1' : '0' });
  return 'requested';
}
