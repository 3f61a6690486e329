/** Fixture: a batch-mode processor (BatchWorker); each result says how big its batch was. */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../../runner';

export const queue = 'batched';

export const options: ProcessorOptions = { batch: { size: 5 } };

export default async function tenfold(jobs: Job<{ n: number }>[]) {
  return jobs.map((job) =>
    job.data.n < 0
      ? new Error(`negative: ${job.data.n}`)
      : { tenfold: job.data.n * 10, batch: jobs.length },
  );
}
