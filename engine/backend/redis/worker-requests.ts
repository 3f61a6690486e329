/**
 * Requests left in Redis for live OxMQ workers, served on their next heartbeat
 * (engine/worker/heartbeat.ts): cancel one of a worker's jobs, quiet or resume a worker.
 */
import type { RedisClient } from '../../connection';
import { ValidationError } from '../../errors';
import type { QueueKeys } from '../../keys';
import { scriptKeys } from '../../scripts/script-keys';
import {
  workerCancelKey,
  workerIdOfToken,
  workerRecordKey,
  type WorkerCommand,
} from '../../worker/heartbeat-keys';
import type { CancelRequestOutcome } from '../queue-operations';
import { runScript } from './run-script';

const OUTCOMES: Record<number, CancelRequestOutcome> = {
  0: 'not-active',
  1: 'requested',
  2: 'held-by-bullmq',
};

/** Placeholder worker id when the lock has no worker id: its keys never exist. */
const NO_WORKER = '-';

export async function requestJobCancel(
  client: RedisClient,
  keys: QueueKeys,
  jobId: string,
  reason: string,
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
        }),
        [jobId, token, reason],
      ),
    );
    const outcome = OUTCOMES[reply];
    if (outcome) return outcome;
  }
  // The job changed hands five times in a row: it is moving too fast to reach.
  return 'not-active';
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
