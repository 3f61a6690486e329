/**
 * Child process body for startFaultWorker() (fault-worker.ts): an OxMQ Worker, or a bullmq
 * 6.7.0 one with `library: 'bullmq'` (the fault suite counts the runs of both alike), that
 * completes every job after a short random work time and reports, one JSON line on stdout each:
 * `ready`; `started` and `completed` (job id, pid, time) for every run of a job; `stalled`
 * for every job its stalled checker recovered; `error` and `failed`; `closed` after a SIGTERM's
 * graceful close. stdout is a pipe, written synchronously on Linux, so a line written before a
 * SIGKILL reaches the parent.
 *
 * A job's data may steer its run (JobInstructions): `blockMs` with `blockIn` set to this worker's
 * name blocks the event loop that long (a busy loop, no await), as a CPU-bound processor does;
 * `workMs` replaces the random work time; `failAttempts` makes the first attempts throw.
 *
 * With `killAt` (fault-worker-kill-at.ts) the process reports `killed` and SIGKILLs itself at the
 * chosen call of a Lua script, e.g. right after a completion was sent and before its reply.
 *
 * argv[2]: JSON FaultWorkerConfig.
 */
import type { EventEmitter } from 'node:events';
import { Worker as BullWorker } from 'bullmq';
import { Worker } from 'oxmq';
import type { FaultWorkerConfig, JobInstructions } from './fault-worker';
import { installKillAt } from './fault-worker-kill-at';

function report(message: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...message, pid: process.pid, at: Date.now() })}\n`);
}

const config = JSON.parse(process.argv[2] ?? '{}') as FaultWorkerConfig;
// Before any Worker exists: the patch must see the scripts being defined on its connections.
if (config.killAt) installKillAt(config.killAt, (kill) => report({ event: 'killed', ...kill }));

function busyWait(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Nothing yields: timers, lock renewals and sockets wait for the loop to come back.
  }
}

const processor = async (job: { id?: string; data?: unknown; attemptsMade: number }) => {
  report({ event: 'started', jobId: job.id, attemptsMade: job.attemptsMade });
  const data = (job.data ?? {}) as JobInstructions;
  if (data.blockMs && data.blockIn === config.workerName) busyWait(data.blockMs);
  else {
    const workMs =
      data.workMs ?? config.workMinMs + Math.random() * (config.workMaxMs - config.workMinMs);
    await new Promise((resolve) => setTimeout(resolve, workMs));
  }
  if (data.failAttempts !== undefined && job.attemptsMade < data.failAttempts) {
    throw new Error(`attempt ${job.attemptsMade + 1} fails on purpose`);
  }
  return { by: config.workerName, pid: process.pid };
};
const options = {
  connection: { host: '127.0.0.1', port: config.port, maxRetriesPerRequest: null },
  name: config.workerName,
  concurrency: config.concurrency,
  lockDuration: config.lockDuration,
  stalledInterval: config.stalledInterval,
  maxStalledCount: config.maxStalledCount,
  drainDelay: config.drainDelay,
  runRetryDelay: config.runRetryDelay,
};
// The two libraries' Workers take the same processor and options and emit the same events.
// Typed as what they have in common: their own on() overloads do not combine in a union.
const worker: EventEmitter & { waitUntilReady(): Promise<unknown>; close(): Promise<void> } =
  config.library === 'bullmq'
    ? new BullWorker(config.queueName, processor, options)
    : new Worker(config.queueName, processor, options);
worker.on('completed', (job: { id?: string }) => report({ event: 'completed', jobId: job.id }));
worker.on('stalled', (jobId: string) => report({ event: 'stalled', jobId }));
worker.on('failed', (job: { id?: string } | undefined, error: Error) =>
  report({ event: 'failed', jobId: job?.id, reason: error.message }),
);
worker.on('error', (error: Error) => report({ event: 'error', message: error.message }));
void worker.waitUntilReady().then(() => report({ event: 'ready' }));

process.once('SIGTERM', () => {
  void worker.close().then(() => {
    report({ event: 'closed' });
    process.exit(0);
  });
});
