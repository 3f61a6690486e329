/**
 * Child process body for startFaultWorker() with `library: 'bullmq'` (fault-worker.ts): a bullmq
 * 6.7.0 Worker on the same queue as the OxMQ workers, reporting as fault-worker.entry.ts does
 * (`ready`, `started`, `completed`, `stalled`, `failed`, `error`, `closed`; one JSON line on
 * stdout each), so the fault suite counts the runs of both libraries' workers alike. Every job
 * completes after a random work time (or its data's `workMs`).
 *
 * argv[2]: JSON FaultWorkerConfig.
 */
import { Worker } from 'bullmq';
import type { FaultWorkerConfig, JobInstructions } from './fault-worker';

function report(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...message, pid: process.pid, at: Date.now() })}\n`);
}

const config = JSON.parse(process.argv[2] ?? '{}') as FaultWorkerConfig;

const worker = new Worker(
  config.queueName,
  async (job) => {
    report({ event: 'started', jobId: job.id });
    const data = (job.data ?? {}) as JobInstructions;
    const workMs =
      data.workMs ?? config.workMinMs + Math.random() * (config.workMaxMs - config.workMinMs);
    await new Promise((resolve) => setTimeout(resolve, workMs));
    return { by: config.workerName, pid: process.pid };
  },
  {
    connection: { host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null },
    name: config.workerName,
    concurrency: config.concurrency,
    lockDuration: config.lockDuration,
    stalledInterval: config.stalledInterval,
    maxStalledCount: config.maxStalledCount,
    drainDelay: config.drainDelay,
    runRetryDelay: config.runRetryDelay,
  },
);
worker.on('completed', (job) => report({ event: 'completed', jobId: job.id }));
worker.on('stalled', (jobId) => report({ event: 'stalled', jobId }));
worker.on('failed', (job, error) =>
  report({ event: 'failed', jobId: job?.id, reason: error.message }),
);
worker.on('error', (error) => report({ event: 'error', message: error.message }));
void worker.waitUntilReady().then(() => report({ event: 'ready' }));

process.once('SIGTERM', () => {
  void worker.close().then(() => {
    report({ event: 'closed' });
    process.exit(0);
  });
});
