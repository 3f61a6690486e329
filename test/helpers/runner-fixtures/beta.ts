/** Fixture: a second queue, with options, doubling a number. */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../../runner';

export const queue = 'beta';

export const options: ProcessorOptions = { concurrency: 2, removeOnComplete: false };

export default async function double(job: Job<{ n: number }>) {
  return { queue, doubled: job.data.n * 2 };
}
