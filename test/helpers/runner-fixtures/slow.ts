/**
 * Fixture: a job that takes `ms`. With `honourAbort` it gives up when the runner aborts it at
 * the shutdown deadline; without, it ignores the signal like most real processors do.
 */
import type { Job } from 'oxmq';
import type { ProcessorOptions } from '../../../runner';

export const queue = 'slow';

export const options: ProcessorOptions = { concurrency: 2 };

export default async function slow(
  job: Job<{ ms: number; honourAbort?: boolean }>,
  _token?: string,
  signal?: AbortSignal,
) {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, job.data.ms);
    if (job.data.honourAbort)
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted by shutdown'));
      });
  });
  return { slept: job.data.ms };
}
