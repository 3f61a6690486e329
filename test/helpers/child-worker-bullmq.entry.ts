/**
 * Child process body for startChildWorker('bullmq'): a bullmq 6.7.0 worker whose processor
 * reports the job it took and then never finishes. The parent kills the process with SIGKILL.
 */
import { Worker } from 'bullmq';
import type { ChildWorkerConfig } from './child-worker';

const config = JSON.parse(process.env.OXMQ_CHILD_CONFIG ?? '{}') as ChildWorkerConfig;

const worker = new Worker(
  config.queueName,
  async (job) => {
    process.stdout.write(`TOOK ${job.id}\n`);
    await new Promise<never>(() => undefined);
  },
  {
    connection: { host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null },
    lockDuration: config.lockDuration,
    // Its own checker would arm `stalled-check` and hold off the surviving worker's checker.
    skipStalledCheck: true,
    name: config.workerName,
  },
);
worker.on('error', (error: Error) => process.stderr.write(`worker error: ${error.message}\n`));
