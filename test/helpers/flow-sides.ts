/**
 * Flow producers and workers of either library (N = OxMQ, B = bullmq 6.7.0) behind one small
 * surface, so a flow scenario runs in both directions: one side writes the tree, the other
 * processes it. Everything opened is handed to `track` and closed after the test.
 */
import {
  FlowProducer as BullFlowProducer,
  Worker as BullWorker,
  type FlowJob as BullFlowJob,
  type FlowOpts as BullFlowOpts,
  type Job as BullJob,
  type JobsOptions as BullJobsOptions,
} from 'bullmq';
import { FlowProducer, Worker, type FlowJob, type Job, type JobsOptions } from 'oxmq';
import type { Track } from './cleanup';
import { redisOptions } from './redis';

export type Side = 'oxmq' | 'bullmq';
export const SIDES: readonly Side[] = ['oxmq', 'bullmq'];
export const other = (side: Side): Side => (side === 'oxmq' ? 'bullmq' : 'oxmq');
export const label = (side: Side) => (side === 'oxmq' ? 'N' : 'B');

/** Job options typed for both libraries. */
export type SharedJobsOptions = BullJobsOptions & JobsOptions;

/** A flow node both libraries accept. */
export interface SharedFlow {
  name: string;
  queueName: string;
  data?: unknown;
  prefix?: string;
  opts?: SharedJobsOptions;
  children?: SharedFlow[];
}

export interface SharedFlowOpts {
  queuesOptions?: Record<string, { defaultJobOptions?: JobsOptions }>;
}

/** Adds one flow with `side`'s FlowProducer; resolves with the root's id. */
export async function addFlow(
  track: Track,
  side: Side,
  flow: SharedFlow,
  opts: SharedFlowOpts & { prefix?: string } = {},
): Promise<string> {
  const { prefix, ...flowOpts } = opts;
  if (side === 'oxmq') {
    const producer = track(new FlowProducer({ connection: redisOptions(), prefix }));
    return (await producer.add(flow as FlowJob, flowOpts)).job.id;
  }
  const producer = track(new BullFlowProducer({ connection: redisOptions(), prefix }));
  const node = await producer.add(
    flow as unknown as BullFlowJob,
    flowOpts.queuesOptions
      ? ({ queuesOptions: flowOpts.queuesOptions } as unknown as BullFlowOpts)
      : undefined,
  );
  return node.job.id!;
}

/** What a processor sees of a job, from either library. */
export interface FlowSideJob {
  id: string;
  name: string;
  data: unknown;
  attemptsMade: number;
  parentKey?: string;
  /** `<prefix>:<queue>:<id>`, the key of the job hash. */
  key: string;
  /** bullmq's Job (B worker) or OxMQ's (N worker). */
  raw: { side: 'bullmq'; job: BullJob } | { side: 'oxmq'; job: Job };
}

export type FlowProcessor = (job: FlowSideJob) => Promise<unknown>;

export interface FlowWorker {
  readonly side: Side;
  /** Ids of the jobs the processor was called with, in call order. */
  readonly calls: string[];
  /** `failed` events: id and reason. */
  readonly failed: { id: string; reason: string }[];
  readonly completed: string[];
  readonly errors: Error[];
  close(): Promise<void>;
}

export interface FlowWorkerOptions {
  prefix?: string;
  concurrency?: number;
}

export function startWorker(
  track: Track,
  side: Side,
  queueName: string,
  processor: FlowProcessor,
  opts: FlowWorkerOptions = {},
): FlowWorker {
  const prefix = opts.prefix ?? 'bull';
  const calls: string[] = [];
  const failed: { id: string; reason: string }[] = [];
  const completed: string[] = [];
  const errors: Error[] = [];
  const keyOf = (id: string) => `${prefix}:${queueName}:${id}`;
  const common = {
    connection: redisOptions(),
    prefix,
    concurrency: opts.concurrency ?? 1,
  };
  if (side === 'oxmq') {
    const worker = track(
      new Worker(
        queueName,
        async (job: Job) => {
          calls.push(job.id);
          return processor({
            id: job.id,
            name: job.name,
            data: job.data as unknown,
            attemptsMade: job.attemptsMade,
            parentKey: job.parentKey,
            key: keyOf(job.id),
            raw: { side, job },
          });
        },
        common,
      ),
    );
    worker.on('failed', (job, error) => {
      if (job) failed.push({ id: job.id, reason: error.message });
    });
    worker.on('completed', (job) => completed.push(job.id));
    worker.on('error', (error) => errors.push(error));
    return { side, calls, failed, completed, errors, close: () => worker.close() };
  }
  const worker = track(
    new BullWorker(
      queueName,
      async (job: BullJob) => {
        calls.push(job.id!);
        return processor({
          id: job.id!,
          name: job.name,
          data: job.data as unknown,
          attemptsMade: job.attemptsMade,
          parentKey: job.parentKey,
          key: keyOf(job.id!),
          raw: { side, job },
        });
      },
      common,
    ),
  );
  worker.on('failed', (job, error) => {
    if (job) failed.push({ id: job.id!, reason: error.message });
  });
  worker.on('completed', (job) => completed.push(job.id!));
  worker.on('error', (error) => errors.push(error));
  return { side, calls, failed, completed, errors, close: () => worker.close() };
}

/** A promise a processor awaits until the test opens it. */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
