/**
 * Admin moves of a memory queue's jobs (the semantics of lua/moveJobsToWait, reprocessJob,
 * promote, changeDelay and changePriority): retry, promote, reprocess, change delay or priority.
 */
import { ValidationError } from '../../errors';
import { checkInteger, checkJobId, checkMillis, checkPriority } from '../operation-validation';
import type { MemoryQueue } from './memory-queue';
import type { MemoryStore } from './memory-store';
import { returnChildToParent } from './parents';
import { refusal } from './refusals';

/**
 * Moves jobs of `state` with score <= maxScore to the back of wait (their group's line for
 * grouped ones; priority ignored, as bullmq's). Finished jobs lose their result.
 */
function moveJobsToWait(
  store: MemoryStore,
  queue: MemoryQueue,
  state: 'failed' | 'completed' | 'delayed',
  maxScore: number,
): void {
  const sets = state === 'delayed' ? [queue.delayed, queue.groups.delayed] : [queue[state]];
  const resultField = state === 'failed' ? 'failedReason' : 'returnvalue';
  let moved = 0;
  for (const set of sets) {
    for (const jobId of set.upTo(maxScore)) {
      set.delete(jobId);
      const hash = queue.jobs.get(jobId)?.hash;
      if (!hash) continue;
      if (hash.gid !== undefined) queue.groups.push(hash.gid, jobId, false);
      else queue.wait.push(jobId);
      if (state !== 'delayed') {
        delete hash.finishedOn;
        delete hash.processedOn;
        delete hash[resultField];
        returnChildToParent(store, queue, jobId, state);
      }
      queue.emit('waiting', { jobId, prev: state });
      moved += 1;
    }
  }
  if (moved > 0) queue.signalReady();
}

export function retryJobs(
  store: MemoryStore,
  queue: MemoryQueue,
  state: 'failed' | 'completed',
  count: number,
  timestamp: number,
): void {
  if (state !== 'failed' && state !== 'completed') {
    throw new ValidationError(`Cannot retry jobs in state "${String(state)}"`);
  }
  checkInteger('count', count, 1);
  moveJobsToWait(store, queue, state, checkMillis('timestamp', timestamp, 0));
}

export function promoteJobs(store: MemoryStore, queue: MemoryQueue, count: number): void {
  checkInteger('count', count, 1);
  moveJobsToWait(store, queue, 'delayed', Infinity);
}

export function reprocessJob(
  store: MemoryStore,
  queue: MemoryQueue,
  jobId: string,
  state: 'completed' | 'failed',
  opts: { lifo: boolean; resetAttemptsMade: boolean; resetAttemptsStarted: boolean },
): void {
  checkJobId(jobId);
  if (state !== 'completed' && state !== 'failed') {
    throw new ValidationError(`Cannot reprocess a job from state "${String(state)}"`);
  }
  const operation = `reprocessJob(${state})`;
  const hash = queue.jobs.get(jobId)?.hash;
  if (!hash) throw refusal('job-missing', jobId, operation);
  if (!queue[state].delete(jobId)) throw refusal('not-in-state', jobId, operation);
  delete hash.finishedOn;
  delete hash.processedOn;
  delete hash[state === 'failed' ? 'failedReason' : 'returnvalue'];
  if (opts.resetAttemptsMade) {
    delete hash.atm;
    delete hash.attemptsMade;
  }
  if (opts.resetAttemptsStarted) delete hash.ats;
  queue.enqueueReady(jobId, Number(hash.priority) || 0, opts.lifo);
  returnChildToParent(store, queue, jobId, state);
  queue.emit('waiting', { jobId, prev: state });
}

export function promoteJob(queue: MemoryQueue, jobId: string): void {
  checkJobId(jobId);
  if (!queue.delayed.delete(jobId) && !queue.groups.delayed.delete(jobId)) {
    throw refusal('not-in-state', jobId, 'promote(delayed)');
  }
  const hash = queue.jobs.get(jobId)!.hash;
  queue.enqueueReady(jobId, Number(hash.priority) || 0, false);
  queue.emit('waiting', { jobId, prev: 'delayed' });
  hash.delay = '0';
}

export function changeDelay(queue: MemoryQueue, jobId: string, delay: number): void {
  checkJobId(jobId);
  const ms = checkMillis('delay', delay, 0);
  const hash = queue.jobs.get(jobId)?.hash;
  if (!hash) throw refusal('job-missing', jobId, 'changeDelay(delayed)');
  if (!queue.delayed.has(jobId) && !queue.groups.delayed.has(jobId)) {
    throw refusal('not-in-state', jobId, 'changeDelay(delayed)');
  }
  const dueTs = Date.now() + ms;
  queue.delayed.delete(jobId);
  queue.groups.delayed.delete(jobId);
  queue.delay(jobId, dueTs);
  hash.delay = String(ms);
  queue.emit('delayed', { jobId, delay: dueTs });
}

/**
 * A waiting job is queued again under its new priority (lifo: ahead of its equals); other
 * states only get the field. Grouped jobs have no priority: 0 moves one within its line.
 */
export function changePriority(
  queue: MemoryQueue,
  jobId: string,
  priority: number,
  lifo: boolean,
): void {
  checkJobId(jobId);
  checkPriority(priority);
  const hash = queue.jobs.get(jobId)?.hash;
  if (!hash) throw refusal('job-missing', jobId, 'changePriority');
  if (hash.gid !== undefined) {
    if (priority !== 0) throw new ValidationError('priority is not supported for grouped jobs');
    const line = queue.groups.line(hash.gid);
    const at = line.indexOf(jobId);
    if (at >= 0) {
      line.splice(at, 1);
      if (lifo) line.unshift(jobId);
      else line.push(jobId);
      if (!queue.groups.isPaused(hash.gid)) queue.signalReady();
    }
    hash.priority = '0';
    return;
  }
  if (queue.prioritized.delete(jobId) || queue.removeFromWait(jobId)) {
    if (priority === 0) {
      if (lifo) queue.wait.unshift(jobId);
      else queue.wait.push(jobId);
      queue.signalReady();
    } else if (lifo) {
      queue.prioritized.set(jobId, priority * 2 ** 32);
    } else {
      queue.prioritized.set(jobId, queue.priorityScore(priority));
      queue.signalReady();
    }
  }
  hash.priority = String(priority);
}
