/**
 * The BatchWorker's two scripts: fetch a batch (moveToActiveBatch) and complete one, with the
 * next batch in the same call (moveToFinishedBatch).
 */
import type { RedisClient } from './connection';
import type { QueueKeys } from '../../queue/keys';
import { scriptError } from '../../scripts/error-codes';
import { scriptKeys } from '../../scripts/script-keys';
import type {
  BatchFetchRequest,
  BatchFetchResult,
  CompleteBatchRequest,
  CompleteBatchResult,
  FetchIdentity,
} from '../queue-backend';
import { flatToRecord, runScript } from './run-script';

export function identityJson(identity: FetchIdentity): string {
  return JSON.stringify({
    token: identity.token,
    lockDuration: identity.lockDuration,
    limitMax: identity.limiter?.max,
    limitDuration: identity.limiter?.duration,
    name: identity.name,
  });
}

export async function fetchJobBatch(
  client: RedisClient,
  k: QueueKeys,
  request: BatchFetchRequest,
): Promise<BatchFetchResult> {
  const reply = await runScript(client, 'moveToActiveBatch', scriptKeys('moveToActiveBatch', k), [
    k.base,
    Date.now(),
    ...batchArgs(request),
  ]);
  return parseBatchReply(reply);
}

export async function completeJobBatch(
  client: RedisClient,
  k: QueueKeys,
  request: CompleteBatchRequest,
): Promise<CompleteBatchResult> {
  const fetchNext = request.fetchNext;
  const reply = (await runScript(
    client,
    'moveToFinishedBatch',
    scriptKeys('moveToFinishedBatch', k, { metricsCompleted: k.metrics('completed') }),
    [
      k.base,
      request.now ?? Date.now(),
      request.token,
      JSON.stringify(
        request.jobs.map((job) => [
          job.jobId,
          job.value,
          JSON.stringify(job.keep),
          job.token ?? request.token,
        ]),
      ),
      request.metricsMaxDataPoints ?? '',
      fetchNext ? '1' : '0',
      ...(fetchNext ? batchArgs(fetchNext) : ['', 0, 0]),
    ],
  )) as [number[], unknown];
  const [codes, next] = reply;
  return {
    errors: request.jobs.map(({ jobId }, index) => {
      const code = Number(codes[index] ?? 0);
      return code < 0 ? scriptError(code, jobId, 'moveToFinishedBatch') : undefined;
    }),
    next: Array.isArray(next) ? parseBatchReply(next) : undefined,
  };
}

function batchArgs(request: BatchFetchRequest): [string, number, number] {
  return [identityJson(request.identity), request.batchSize, request.maxBatchBytes];
}

function parseBatchReply(reply: unknown): BatchFetchResult {
  const [hashes, ids, rateLimitTtl, nextDelayedTs, held] = reply as unknown[];
  if (Array.isArray(hashes) && Array.isArray(ids)) {
    return {
      kind: 'batch',
      jobs: ids.map((jobId, index) => ({
        jobId: String(jobId),
        hash: flatToRecord(hashes[index] as string[]),
      })),
    };
  }
  return {
    kind: 'none',
    rateLimitTtl: Number(rateLimitTtl) || 0,
    nextDelayedTs: Number(nextDelayedTs) || 0,
    held: held === 1,
  };
}
