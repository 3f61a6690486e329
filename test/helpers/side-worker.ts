/**
 * One in-process producer or worker of either library (N = OxMQ, B = bullmq 6.7.0) behind the
 * same small surface, so an interop case can run one scenario in both directions. A worker's
 * events are recorded for assertions.
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { Queue, Worker } from 'oxmq';
import type { WorkerSide } from './child-worker';
import type { Track } from './cleanup';
import type { SharedJobsOptions } from './interop-core';
import { redisOptions } from './redis';

/** Both directions of a case: who adds the jobs, who processes them. */
export const DIRECTIONS: { producer: WorkerSide; consumer: WorkerSide }[] = [
  { producer: 'bullmq', consumer: 'oxmq' },
  { producer: 'oxmq', consumer: 'bullmq' },
];

export const sideLabel = (side: WorkerSide) => (side === 'oxmq' ? 'N' : 'B');
export const otherSide = (side: WorkerSide): WorkerSide => (side === 'oxmq' ? 'bullmq' : 'oxmq');

/** Adds jobs with one library's Queue; resolves with the job ids. */
export interface SideProducer {
  add(name: string, data: unknown, opts?: SharedJobsOptions): Promise<string>;
  addBulk(jobs: { name: string; data: unknown }[]): Promise<string[]>;
}

/** A producer of `side` on a new Queue, closed by `track` after the test. */
export function sideProducer(track: Track, side: WorkerSide, queueName: string): SideProducer {
  if (side === 'bullmq') {
    const queue = track(new BullQueue(queueName, { connection: redisOptions() }));
    return {
      add: async (name, data, opts) => (await queue.add(name, data, opts)).id!,
      addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id!),
    };
  }
  const queue = track(new Queue(queueName, { connection: redisOptions() }));
  return {
    add: async (name, data, opts) => (await queue.add(name, data, opts)).id,
    addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id),
  };
}

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
