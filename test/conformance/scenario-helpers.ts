/** Small steps the conformance scenarios share: a worker's identity, fetching and finishing. */
import type { FetchIdentity, QueueBackend, QueueKeys } from 'oxmq/internals';
import { newJob } from '../helpers/new-job';
import type { StorageUnderTest } from './harness';

export const WORKER: FetchIdentity = { token: 'token-1', lockDuration: 30_000 };

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fetches the next job, failing the scenario when there is none. */
export async function fetchJob(backend: QueueBackend, identity = WORKER) {
  const result = await backend.fetchNextJob(identity);
  if (result.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(result)}`);
  return result;
}

/** Completes an active job (fetched with WORKER), keeping it. */
export async function complete(backend: QueueBackend, jobId: string, value = 'null') {
  await backend.finishJob({
    jobId,
    token: WORKER.token,
    outcome: 'completed',
    value,
    keep: { count: -1 },
    attempts: 1,
  });
}

/** Fails an active job (fetched with WORKER) for good, keeping it. */
export async function fail(backend: QueueBackend, jobId: string, reason = 'boom') {
  await backend.finishJob({
    jobId,
    token: WORKER.token,
    outcome: 'failed',
    value: reason,
    keep: { count: -1 },
    attempts: 1,
  });
}

/** Fetches the next job and completes it; returns its id. */
export async function runNext(backend: QueueBackend, value = 'null') {
  const { jobId } = await fetchJob(backend);
  await complete(backend, jobId, value);
  return jobId;
}

/** Flat `name, value, ...` fields as an object. */
export function fieldsOf(fields: string[]): Record<string, string> {
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) object[fields[i]!] = fields[i + 1]!;
  return object;
}

/** What JobScheduler and readFlow take as the queue they serve. */
export const scopeOf = ({ keys, queue }: StorageUnderTest) => ({
  name: keys.queueName,
  prefix: keys.prefix,
  backend: queue.backend,
  ops: queue.ops,
});

/** The queue a flow node is written to. */
export const queueOf = (keys: QueueKeys) => ({ prefix: keys.prefix, name: keys.queueName });

/** A parent with two children, written as one flow. */
export const flowOf = (keys: QueueKeys, parentId: string) => {
  const link = { id: parentId, queueKey: keys.queueKey };
  return [
    {
      queue: queueOf(keys),
      job: newJob({ name: 'parent', customId: parentId, asParent: true }),
      external: false,
      flow: 0,
    },
    ...['a', 'b'].map((id) => ({
      queue: queueOf(keys),
      job: newJob({
        name: `child-${id}`,
        customId: `${parentId}-${id}`,
        parent: { key: keys.job(parentId), link },
      }),
      external: false,
      flow: 0,
    })),
  ];
};
