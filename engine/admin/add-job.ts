/**
 * Adds one job from the console, through the same Queue.add a producer uses, so the job is
 * exactly what a bullmq producer would have written. The options are a deliberately small set
 * (what an operator sets by hand, engine/job/option-schema.ts); anything else belongs in code.
 */
import type { RedisClient } from '../backend/redis/connection';
import type { JobsOptions } from '../job/options';
import type { ConsoleJobOptions } from '../job/option-schema';
import { queueHandle } from './queue-handle';

export type { ConsoleJobOptions } from '../job/option-schema';

export interface ConsoleNewJob {
  name: string;
  data: unknown;
  opts?: ConsoleJobOptions;
}

/** Returns the id of the added job (an existing job's id when `jobId` was already taken). */
export async function addJobFromConsole(
  client: RedisClient,
  prefix: string,
  queueName: string,
  job: ConsoleNewJob,
): Promise<string> {
  const opts: JobsOptions = { ...job.opts };
  const added = await queueHandle(client, prefix, queueName).add(job.name, job.data, opts);
  return added.id;
}
