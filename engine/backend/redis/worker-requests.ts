/**
 * Requests left in Redis for live OxMQ workers (engine/worker/heartbeat.ts): cancel one of a
 * worker's jobs (the worker is woken at once through its wake key), quiet or resume a worker
 * (served on its next heartbeat).
 */
import type { RedisClient } from './connection';
import { ValidationError } from '../../errors';
import type { QueueKeys } from '../../queue/keys';
import { scriptKeys } from '../../scripts/script-keys';
import {
  workerCancelKey,
  workerIdOfToken,
  workerRecordKey,
  workerWakeKey,
  type WorkerCommand,
} from '../../worker/heartbeat-keys';
import type { CancelOutcome } from '../queue-backend';
import type { CancelRequestOutcome } from '../queue-operations';
import { runScript } from './run-script';

const OUTCOMES: Record<number, CancelRequestOutcome> = {
  0: 'not-active',
  1: 'requested',
  2: 'held-by-bullmq',
};

/** Placeholder worker id when the lock has no worker id: its keys never exist. */
const NO_WORKER = '-';

export interface CancelRequestOptions {
  /**
   * Kill the sandbox child running the job rather than wait for its processor (one that ignores
   * its signal). A worker whose processor runs in its own process cannot do that and only
   * aborts the signal again; see cancelHolder.
   */
  force?: boolean;
}

export async function requestJobCancel(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  reason: string,
  { force = false }: CancelRequestOptions = {},
): Promise<CancelRequestOutcome> {
  if (typeof jobId !== 'string' || jobId.length === 0) {
    throw new ValidationError('cancelJob needs a job id');
  }
  // The lock says which worker holds the job; the script checks it is still the same lock.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const token = (await client.get(keys.jobLock(jobId))) ?? '';
    const workerId = workerIdOfToken(token) ?? NO_WORKER;
    const reply = Number(
      await runScript(
        client,
        'requestJobCancel',
        scriptKeys('requestJobCancel', keys, {
          lock: keys.jobLock(jobId),
          worker: workerRecordKey(keys, workerId),
          workerCancel: workerCancelKey(keys, workerId),
          workerWake: workerWakeKey(keys, workerId),
          jobHash: keys.job(jobId),
        }),
        [jobId, token, reason, force ? '1' : '', Date.now()],
      ),
    );
    const outcome = OUTCOMES[reply];
    if (outcome) return outcome;
  }
  // The job changed hands five times in a row: it is moving too fast to reach.
  return 'not-active';
}

/** Who holds an active job, as far as cancelling it goes. */
export interface CancelHolder {
  /** The OxMQ worker whose lock the job carries, when its heartbeat record is live. */
  workerId?: string;
  /** That worker runs its processor in sandbox children: a force stop can kill the job's. */
  canForce: boolean;
}

/** Reads the job's lock and the record of the worker it names. */
export async function cancelHolder(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
): Promise<CancelHolder> {
  const token = await client.get(keys.jobLock(jobId));
  const workerId = token ? workerIdOfToken(token) : undefined;
  if (!workerId) return { canForce: false };
  const [id, forceStop] = await client.hmget(workerRecordKey(keys, workerId), 'id', 'forceStop');
  if (!id) return { canForce: false };
  return { workerId, canForce: forceStop === '1' };
}

/** Notes a cancel request's outcome in the events stream (recordCancelOutcome-2.lua). */
export async function recordCancelOutcome(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  outcome: CancelOutcome,
): Promise<void> {
  const event = outcome === 'completed-anyway' ? 'cancel-ignored' : 'cancelled';
  await runScript(client, 'recordCancelOutcome', scriptKeys('recordCancelOutcome', keys), [
    jobId,
    event,
    outcome,
  ]);
}

/** Leaves a command for a live worker; false when no live OxMQ worker has that id. */
export async function commandWorker(
  client: RedisClient,
  keys: QueueKeys,
  workerId: string,
  command: WorkerCommand,
): Promise<boolean> {
  if (typeof workerId !== 'string' || workerId.length === 0) {
    throw new ValidationError('a worker id is needed');
  }
  const reply = await runScript(
    client,
    'commandWorker',
    [workerRecordKey(keys, workerId)],
    [command],
  );
  return Number(reply) === 1;
}
