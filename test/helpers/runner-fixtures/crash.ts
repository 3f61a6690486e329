/**
 * Fixture: a sandboxed processor that kills its own process (exit code 7) when asked to; any
 * other job reports the child's pid, so a test can see a fresh child took over.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../../runner';

export const queue = 'crashy';

export const options: ProcessorOptions = { sandbox: 'process' };

export default async function maybeCrash(job: Job<{ crash: boolean }>) {
  if (job.data.crash) process.exit(7);
  return { pid: process.pid };
}
