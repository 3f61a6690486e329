/**
 * A job id looked up in every queue given (the console's quick-jump box): one pipeline of HEXISTS
 * over the queues' job hashes (one per queue on a Cluster, redis/cluster-reads.ts), then the state
 * of each hit. Job ids are only unique within a queue, so the answer is a list.
 */
import type { RedisClient } from '../backend/redis/connection';
import { QueueKeys } from '../queue/keys';
import { pipelinePerItem } from './redis/cluster-reads';
import { hasJobIdShape } from './redis/job-id';
import { queueHandle } from './queue-handle';
import type { QueueRef } from './redis/queues';

export interface JobLocation {
  prefix: string;
  queue: string;
  id: string;
  jobName: string;
  state: string;
}

/** Queues one lookup checks at most (a page of discovery is 100 per prefix). */
export const FIND_JOB_MAX_QUEUES = 1_000;

export async function findJobEverywhere(
  client: RedisClient,
  queues: readonly QueueRef[],
  id: string,
): Promise<JobLocation[]> {
  if (!hasJobIdShape(id) || queues.length === 0) return [];
  const checked = queues.slice(0, FIND_JOB_MAX_QUEUES);
  // bullmq and OxMQ always write `timestamp`: a key that lacks it is no job (redis/job-id.ts);
  // HEXISTS on a key of another type (a log list) fails for that queue alone.
  const replies = await pipelinePerItem(client, checked, (pipeline, ref) =>
    pipeline.hexists(new QueueKeys(ref.prefix, ref.name).base + id, 'timestamp'),
  );
  const hits = checked.filter((_, index) => replies[index]?.[0]?.[1] === 1);
  return Promise.all(
    hits.map(async (ref) => {
      const job = await queueHandle(client, ref.prefix, ref.name).getJob(id);
      return {
        prefix: ref.prefix,
        queue: ref.name,
        id,
        jobName: job?.name ?? '',
        state: job ? await job.getState() : 'unknown',
      };
    }),
  );
}
