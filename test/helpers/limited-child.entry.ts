/**
 * Child process body for startLimitedChild() (limited-child.ts): an OxMQ or bullmq 6.7.0 worker
 * that really finishes its jobs (each takes `jobMs`), optionally with its own `limiter`, and
 * reports one JSON line on stdout per event: `ready`, `started` (job id, pid) and `completed`.
 * On SIGTERM it closes the worker gracefully and exits.
 *
 * argv[2]: JSON LimitedChildConfig.
 */
import type { EventEmitter } from 'node:events';
import { Worker as BullWorker } from 'bullmq';
import { Worker } from 'oxmq';
import type { LimitedChildConfig } from './limited-child';

function report(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const config = JSON.parse(process.argv[2] ?? '{}') as LimitedChildConfig;
// Only what is set: an explicit undefined would override the libraries' defaults.
const options = {
  connection: { host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null },
  ...(config.concurrency !== undefined && { concurrency: config.concurrency }),
  ...(config.limiter !== undefined && { limiter: config.limiter }),
  ...(config.drainDelay !== undefined && { drainDelay: config.drainDelay }),
};
const processor = async (job: { id?: string }) => {
  report({ event: 'started', jobId: job.id, pid: process.pid });
  await new Promise((resolve) => setTimeout(resolve, config.jobMs ?? 0));
  return { pid: process.pid };
};

type Closable = EventEmitter & { close(): Promise<void> };
const worker: Closable =
  config.side === 'bullmq'
    ? new BullWorker(config.queueName, processor, options)
    : new Worker(config.queueName, processor, options);
worker.on('error', (error: Error) => report({ event: 'error', message: error.message }));
worker.on('ready', () => report({ event: 'ready', pid: process.pid }));
worker.on('completed', (job: { id?: string }) => report({ event: 'completed', jobId: job.id }));

process.once('SIGTERM', () => {
  worker
    .close()
    .catch((error: unknown) => report({ event: 'error', message: String(error) }))
    .finally(() => process.exit(0));
});
