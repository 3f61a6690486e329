/**
 * OxMQ and bullmq 6.7.0 behind one small surface, so every scenario runs the same code, the same
 * payloads and the same options against either library.
 */
import {
  FlowProducer as BullFlowProducer,
  Queue as BullQueue,
  Worker as BullWorker,
  type FlowJob as BullFlowJob,
} from 'bullmq';
import type { RedisOptions } from 'ioredis';
import {
  BatchWorker,
  FlowProducer,
  Queue,
  Worker,
  type ConnectionOptions,
  type FlowJob,
  type Telemetry,
} from 'oxmq';
import type { BenchFlow, BenchFlowNode } from './flow-tree';
import type { Lib } from './stats';

export interface BenchJobOpts {
  removeOnComplete?: boolean;
}

export interface BenchQueue {
  add(name: string, data: unknown, opts?: BenchJobOpts): Promise<string>;
  addBulk(jobs: { name: string; data: unknown; opts?: BenchJobOpts }[]): Promise<string[]>;
  waitUntilReady(): Promise<void>;
  close(): Promise<void>;
}

export interface BenchJob {
  id: string;
  timestamp: number;
  processedOn: number | undefined;
}

export interface BenchWorker {
  /** Starts fetching (workers are created with autorun: false). */
  run(): void;
  waitUntilReady(): Promise<void>;
  /** The listener gets the completed job's id. */
  onCompleted(listener: (id: string) => void): void;
  onError(listener: (error: Error) => void): void;
  close(): Promise<void>;
}

export interface BenchFlowProducer {
  /** One FlowProducer.add: the tree in, the created ids out. */
  add(flow: BenchFlow): Promise<BenchFlowNode>;
  waitUntilReady(): Promise<void>;
  close(): Promise<void>;
}

export interface BenchLib {
  queue(name: string): BenchQueue;
  flowProducer(): BenchFlowProducer;
  worker(
    name: string,
    processor: (job: BenchJob) => Promise<void>,
    /**
     * batchSize (OxMQ only): a BatchWorker taking that many jobs per batch, `concurrency` batches
     * at once. timingHistory (OxMQ only): false turns the worker's timing history off.
     */
    opts: { concurrency: number; batchSize?: number; timingHistory?: boolean },
  ): BenchWorker;
}

/**
 * `bullmqTelemetry`: bullmq's telemetry option, for a traced run (OxMQ traces through the global
 * OpenTelemetry API and needs nothing).
 */
export function benchLib(
  lib: Lib,
  connection: RedisOptions,
  bullmqTelemetry?: Telemetry,
): BenchLib {
  return lib === 'oxmq' ? oxmq(connection) : bullmq(connection, bullmqTelemetry);
}

/** `connection` may be a shared instance too: bench/cluster-child.ts passes a `Cluster`. */
export function oxmq(connection: ConnectionOptions): BenchLib {
  return {
    queue(name) {
      const queue = new Queue(name, { connection });
      return {
        add: async (jobName, data, opts) => (await queue.add(jobName, data, opts)).id,
        addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id),
        waitUntilReady: () => queue.waitUntilReady(),
        close: () => queue.close(),
      };
    },
    flowProducer() {
      const producer = new FlowProducer({ connection });
      return {
        add: async (flow) => toBenchNode(await producer.add(flow as FlowJob)),
        waitUntilReady: () => producer.waitUntilReady(),
        close: () => producer.close(),
      };
    },
    worker(name, processor, opts) {
      const toBench = (job: { id: string; timestamp: number; processedOn?: number }) => ({
        id: job.id,
        timestamp: job.timestamp,
        processedOn: job.processedOn,
      });
      const options = {
        connection,
        concurrency: opts.concurrency,
        autorun: false,
        ...(opts.timingHistory === false && { timingHistory: false }),
      };
      const worker = opts.batchSize
        ? new BatchWorker(
            name,
            async (jobs) => {
              await Promise.all(jobs.map((job) => processor(toBench(job))));
              return jobs.map(() => null);
            },
            { ...options, batchSize: opts.batchSize },
          )
        : new Worker(name, (job) => processor(toBench(job)), options);
      return {
        run: () => void worker.run().catch((error: unknown) => worker.emit('error', error)),
        waitUntilReady: () => worker.waitUntilReady(),
        onCompleted: (listener) => void worker.on('completed', (job) => listener(job.id)),
        onError: (listener) => void worker.on('error', listener),
        close: () => worker.close(),
      };
    },
  };
}

function bullmq(connection: RedisOptions, telemetry?: Telemetry): BenchLib {
  return {
    queue(name) {
      // bullmq-otel implements bullmq's interface, which OxMQ's Telemetry type mirrors.
      const queue = new BullQueue(name, { connection, telemetry: telemetry as never });
      return {
        add: async (jobName, data, opts) => (await queue.add(jobName, data, opts)).id!,
        addBulk: async (jobs) => (await queue.addBulk(jobs)).map((job) => job.id!),
        waitUntilReady: async () => {
          await queue.waitUntilReady();
        },
        close: () => queue.close(),
      };
    },
    flowProducer() {
      const producer = new BullFlowProducer({ connection, telemetry: telemetry as never });
      return {
        add: async (flow) => toBenchNode(await producer.add(flow as BullFlowJob)),
        waitUntilReady: async () => {
          await producer.waitUntilReady();
        },
        close: () => producer.close(),
      };
    },
    worker(name, processor, opts) {
      const worker = new BullWorker(
        name,
        (job) => processor({ id: job.id!, timestamp: job.timestamp, processedOn: job.processedOn }),
        {
          connection,
          concurrency: opts.concurrency,
          autorun: false,
          telemetry: telemetry as never,
        },
      );
      return {
        run: () =>
          void worker.run().catch((error: unknown) => worker.emit('error', error as Error)),
        waitUntilReady: async () => {
          await worker.waitUntilReady();
        },
        onCompleted: (listener) => void worker.on('completed', (job) => listener(job.id!)),
        onError: (listener) => void worker.on('error', listener),
        close: () => worker.close(),
      };
    },
  };
}

/** Either library's JobNode (a job with an id, and its children) as the harness's tree of ids. */
function toBenchNode(node: { job: { id?: string }; children?: unknown[] }): BenchFlowNode {
  const children = (node.children ?? []) as { job: { id?: string }; children?: unknown[] }[];
  const id = node.job.id!;
  return children.length > 0 ? { id, children: children.map(toBenchNode) } : { id };
}
