/**
 * Child process body for startChildWorker() (child-worker.ts): an OxMQ or bullmq 6.7.0 worker
 * that reports, one JSON line on stdout each, when it is ready and every job it starts, and never
 * finishes a job. The parent kills the process with SIGKILL.
 *
 * argv[2]: JSON ChildWorkerConfig.
 */
import type { EventEmitter } from 'node:events';
import { Worker as BullWorker } from 'bullmq';
import { BatchWorker, Worker } from 'oxmq';
import type { ChildWorkerConfig } from './child-worker';

function report(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildWorkerConfig;
// Only what is set: an explicit undefined would override bullmq's defaults.
const options = {
  connection: { host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null },
  ...(config.workerName !== undefined && { name: config.workerName }),
  ...(config.lockDuration !== undefined && { lockDuration: config.lockDuration }),
  ...(config.stalledInterval !== undefined && { stalledInterval: config.stalledInterval }),
  ...(config.skipStalledCheck !== undefined && { skipStalledCheck: config.skipStalledCheck }),
};
const oxmqOptions = {
  ...options,
  ...(config.heartbeatInterval !== undefined && { heartbeatInterval: config.heartbeatInterval }),
};
const processor = (job: { id?: string }) => {
  report({ event: 'active', jobId: job.id, pid: process.pid });
  return new Promise<never>(() => undefined);
};

const cancellableProcessor = (job: { id?: string }, _token?: string, signal?: AbortSignal) => {
  report({ event: 'active', jobId: job.id, pid: process.pid });
  return new Promise<never>((_resolve, reject) => {
    signal!.addEventListener('abort', () =>
      reject(new Error(`cancelled: ${String(signal!.reason)}`)),
    );
  });
};

const batchProcessor = (jobs: { id?: string }[]) => {
  report({ event: 'batch', jobIds: jobs.map((job) => job.id), pid: process.pid });
  for (const job of jobs) report({ event: 'active', jobId: job.id, pid: process.pid });
  return new Promise<never>(() => undefined);
};

// Typed as the EventEmitter they all are: their own on() overloads do not combine in a union.
const worker: EventEmitter =
  config.side === 'bullmq'
    ? new BullWorker(config.queueName, processor, options)
    : config.side === 'oxmq-batch'
      ? new BatchWorker(config.queueName, batchProcessor, {
          ...oxmqOptions,
          batchSize: config.batchSize,
        })
      : new Worker(
          config.queueName,
          config.honourCancel ? cancellableProcessor : processor,
          oxmqOptions,
        );
worker.on('error', (error: Error) => report({ event: 'error', message: error.message }));
worker.on('failed', (job: { id?: string } | undefined, error: Error) =>
  report({ event: 'failed', jobId: job?.id, reason: error.message }),
);
worker.on('ready', () => report({ event: 'ready', pid: process.pid }));
