/**
 * Entry point of a worker that runs in a child process (bundled by test/helpers/oxmq-child.ts).
 * It takes jobs of one queue, reports each start on stdout as a JSON line, and never finishes
 * them, so the test can kill the process while it holds a job's lock.
 *
 * argv[2]: JSON ChildWorkerConfig.
 */
import { Worker } from '../../engine';

export interface ChildWorkerConfig {
  queueName: string;
  port: number;
  workerName?: string;
  lockDuration?: number;
  stalledInterval?: number;
}

function report(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildWorkerConfig;
const worker = new Worker(
  config.queueName,
  (job) => {
    report({ event: 'active', jobId: job.id, pid: process.pid });
    return new Promise<never>(() => undefined);
  },
  {
    connection: { host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null },
    name: config.workerName,
    lockDuration: config.lockDuration,
    stalledInterval: config.stalledInterval,
  },
);
worker.on('error', (error: Error) => report({ event: 'error', message: error.message }));
worker.on('ready', () => report({ event: 'ready', pid: process.pid }));
