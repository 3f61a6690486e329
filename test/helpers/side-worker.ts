/**
 * One in-process worker of either library (N = OxMQ, B = bullmq 6.7.0) behind the same small
 * surface, so an interop case can run one scenario in both directions. Its events are recorded
 * for assertions.
 */
import { Worker as BullWorker } from 'bullmq';
import { Worker } from '../../engine';
import type { WorkerSide } from './child-worker';
import { redisOptions } from './redis';

export interface SideJob {
  id: string;
  name: string;
  data: unknown;
  attemptsMade: number;
  log(line: string): Promise<unknown>;
}

export interface SideWorkerOptions {
  concurrency?: number;
  lockDuration?: number;
  stalledInterval?: number;
  maxStalledCount?: number;
  skipStalledCheck?: boolean;
  drainDelay?: number;
  name?: string;
}

export interface SideWorker {
  readonly side: WorkerSide;
  /** Job ids, in the order the events came. */
  readonly started: string[];
  readonly completed: string[];
  readonly failed: { id: string; message: string }[];
  readonly stalled: string[];
  readonly lockRenewalFailed: string[];
  readonly errors: Error[];
  waitUntilReady(): Promise<void>;
  close(): Promise<void>;
}

export function startSideWorker(
  side: WorkerSide,
  queueName: string,
  processor: (job: SideJob) => Promise<unknown>,
  opts: SideWorkerOptions = {},
): SideWorker {
  const record: Omit<SideWorker, 'side' | 'waitUntilReady' | 'close'> = {
    started: [],
    completed: [],
    failed: [],
    stalled: [],
    lockRenewalFailed: [],
    errors: [],
  };
  const options = { connection: redisOptions(), ...opts };
  const run = (job: SideJob) => {
    record.started.push(job.id);
    return processor(job);
  };
  if (side === 'oxmq') {
    const worker = new Worker(
      queueName,
      (job) =>
        run({
          id: job.id,
          name: job.name,
          data: job.data,
          attemptsMade: job.attemptsMade,
          log: (line) => job.log(line),
        }),
      options,
    );
    worker.on('completed', (job: { id: string }) => record.completed.push(job.id));
    worker.on('failed', (job: { id: string }, error: Error) =>
      record.failed.push({ id: job.id, message: error.message }),
    );
    worker.on('stalled', (jobId: string) => record.stalled.push(jobId));
    worker.on('lockRenewalFailed', (ids: string[]) => record.lockRenewalFailed.push(...ids));
    worker.on('error', (error: Error) => record.errors.push(error));
    return {
      side,
      ...record,
      waitUntilReady: () => worker.waitUntilReady(),
      close: () => worker.close(),
    };
  }
  const worker = new BullWorker(
    queueName,
    (job) =>
      run({
        id: job.id ?? '',
        name: job.name,
        data: job.data,
        attemptsMade: job.attemptsMade,
        log: (line) => job.log(line),
      }),
    options,
  );
  worker.on('completed', (job) => record.completed.push(job.id ?? ''));
  worker.on('failed', (job, error) =>
    record.failed.push({ id: job?.id ?? '', message: error.message }),
  );
  worker.on('stalled', (jobId) => record.stalled.push(jobId));
  worker.on('lockRenewalFailed', (ids) => record.lockRenewalFailed.push(...ids));
  worker.on('error', (error) => record.errors.push(error));
  return {
    side,
    ...record,
    waitUntilReady: async () => {
      await worker.waitUntilReady();
    },
    close: () => worker.close(),
  };
}
