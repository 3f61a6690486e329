/** Admin moves of jobs between states: retry, promote, reprocess, change delay or priority. */
import type { RedisClient } from './connection';
import { DEFAULTS } from '../../defaults';
import { ValidationError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { throwIfErrorCode } from '../../scripts/error-codes';
import { scriptKeys } from '../../scripts/script-keys';
import { checkInteger, checkJobId, checkMillis, checkPriority } from '../operation-validation';
import { runScript } from './run-script';

/**
 * Moves every job of `state` with score <= maxScore to wait, `count` per script call but never
 * more than DEFAULTS.chunkSize, so that no call runs long however large a count is asked.
 */
async function moveJobsToWait(
  client: RedisClient,
  keys: QueueKeys,
  state: 'failed' | 'completed' | 'delayed',
  count: number,
  maxScore: string,
): Promise<void> {
  const k = keys;
  const perCall = Math.min(count, DEFAULTS.chunkSize);
  for (;;) {
    const more = await runScript(
      client,
      'moveJobsToWait',
      scriptKeys('moveJobsToWait', k, { state: k.base + state }),
      [k.base, perCall, maxScore, state],
    );
    if (Number(more) !== 1) return;
  }
}

export async function retryJobs(
  client: RedisClient,
  keys: QueueKeys,
  state: 'failed' | 'completed',
  count: number,
  timestamp: number,
): Promise<void> {
  if (state !== 'failed' && state !== 'completed') {
    throw new ValidationError(`Cannot retry jobs in state "${String(state)}"`);
  }
  checkInteger('count', count, 1);
  checkMillis('timestamp', timestamp, 0);
  await moveJobsToWait(client, keys, state, count, String(timestamp));
}

export async function promoteJobs(
  client: RedisClient,
  keys: QueueKeys,
  count: number,
): Promise<void> {
  checkInteger('count', count, 1);
  await moveJobsToWait(client, keys, 'delayed', count, '+inf');
}

export async function reprocessJob(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  state: 'completed' | 'failed',
  opts: { lifo: boolean; resetAttemptsMade: boolean; resetAttemptsStarted: boolean },
): Promise<void> {
  checkJobId(jobId);
  if (state !== 'completed' && state !== 'failed') {
    throw new ValidationError(`Cannot reprocess a job from state "${String(state)}"`);
  }
  const k = keys;
  const reply = await runScript(
    client,
    'reprocessJob',
    scriptKeys('reprocessJob', k, { jobHash: k.job(jobId), state: k.base + state }),
    [
      jobId,
      opts.lifo ? 'RPUSH' : 'LPUSH',
      state === 'failed' ? 'failedReason' : 'returnvalue',
      state,
      opts.resetAttemptsMade ? '1' : '0',
      opts.resetAttemptsStarted ? '1' : '0',
    ],
  );
  throwIfErrorCode(reply, jobId, `reprocessJob(${state})`);
}

export async function promoteJob(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<void> {
  checkJobId(jobId);
  const k = keys;
  const reply = await runScript(client, 'promote', scriptKeys('promote', k), [k.base, jobId]);
  throwIfErrorCode(reply, jobId, 'promote(delayed)');
}

export async function changeDelay(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  delay: number,
): Promise<void> {
  checkJobId(jobId);
  const ms = checkMillis('delay', delay, 0);
  const k = keys;
  const reply = await runScript(client, 'changeDelay', scriptKeys('changeDelay', k), [
    ms,
    Date.now(),
    jobId,
    k.job(jobId),
  ]);
  throwIfErrorCode(reply, jobId, 'changeDelay(delayed)');
}

export async function changePriority(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  priority: number,
  lifo: boolean,
): Promise<void> {
  checkJobId(jobId);
  checkPriority(priority);
  const k = keys;
  const reply = await runScript(
    client,
    'changePriority',
    scriptKeys('changePriority', k, { jobHash: k.job(jobId) }),
    [priority, jobId, lifo ? '1' : '0'],
  );
  throwIfErrorCode(reply, jobId, 'changePriority');
}
