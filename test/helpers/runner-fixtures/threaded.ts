/** Fixture: a processor in a worker thread sandbox, reporting where it ran. */
import { isMainThread, threadId } from 'node:worker_threads';
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../../runner';

export const queue = 'threaded';

export const options: ProcessorOptions = { sandbox: 'thread' };

export default async function whereAmI(job: Job<{ n: number }>) {
  return { pid: process.pid, isMainThread, threadId, n: job.data.n };
}
