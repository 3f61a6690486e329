/**
 * The benchmark scenarios (docs/benchmarks.md, "Scenarios"), as data. main.ts runs every entry with a `kind`;
 * an entry with `skip` is printed as skipped, never measured or faked.
 */
import { FLOW_SHAPE } from './flow-tree';

export type ScenarioKind =
  | 'add'
  | 'addBulk'
  | 'addConcurrent'
  | 'worker'
  | 'batch'
  | 'io'
  | 'idle'
  | 'latency'
  | 'flowAdd'
  | 'flowProcess';

export interface ScenarioParams {
  /** Jobs measured (add, addBulk, worker, io) or produced (latency). */
  jobs: number;
  concurrency: number;
  bulkSize: number;
  removeOnComplete: boolean;
  /** batch: OxMQ's BatchWorker batch size (its `concurrency` is batchConcurrency). */
  batchSize: number;
  batchConcurrency: number;
  /** io: how long each job awaits a timer. */
  jobDelayMs: number;
  /** idle: number of idle workers. */
  workers: number;
  /** idle, latency: how long the measured window lasts. */
  durationMs: number;
  /** latency: open-loop producer rate, jobs per second. */
  ratePerSec: number;
  /** addConcurrent: producers sharing one Queue, each awaiting its own adds. */
  producers: number;
  /** flowAdd, flowProcess: flows added (measured, or pre-added for processing). */
  flows: number;
  /** flowAdd, flowProcess: children per node at each level below the root (bench/flow-tree.ts). */
  flowShape: readonly number[];
  /** Both libraries trace every job through a real OpenTelemetry SDK (bench/tracing.ts). */
  tracing: boolean;
  /** OxMQ workers keep their timing history (docs/metrics.md; on by default, as in a service). */
  timingHistory: boolean;
}

export interface Scenario {
  name: string;
  what: string;
  kind?: ScenarioKind;
  skip?: string;
  full: Partial<ScenarioParams>;
  quick: Partial<ScenarioParams>;
  /** Warm-up round: the same scenario, smaller. */
  warmup: Partial<ScenarioParams>;
}

export const DEFAULT_PARAMS: ScenarioParams = {
  jobs: 0,
  concurrency: 1,
  bulkSize: 50,
  removeOnComplete: false,
  batchSize: 0,
  batchConcurrency: 1,
  jobDelayMs: 0,
  workers: 0,
  durationMs: 0,
  ratePerSec: 0,
  producers: 1,
  flows: 0,
  flowShape: FLOW_SHAPE,
  tracing: false,
  timingHistory: true,
};

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'add',
    what: 'awaited single Queue.add, one at a time',
    kind: 'add',
    // Each run is a fresh process, so a warm-up round warms Redis and the OS, not the JIT: small.
    full: { jobs: 10_000 },
    quick: { jobs: 3_000 },
    warmup: { jobs: 1_000 },
  },
  {
    name: 'addBulk',
    what: 'Queue.addBulk in chunks of 50',
    kind: 'addBulk',
    full: { jobs: 50_000 },
    quick: { jobs: 10_000 },
    warmup: { jobs: 2_000 },
  },
  {
    name: 'add-concurrent',
    what: '100 producers on one Queue instance, each awaiting its own Queue.add, not each other',
    kind: 'addConcurrent',
    full: { jobs: 150_000, producers: 100 },
    quick: { jobs: 30_000, producers: 100 },
    warmup: { jobs: 5_000, producers: 100 },
  },
  {
    name: 'worker-c1',
    what: 'pre-filled queue, one Worker, concurrency 1, no-op processor',
    kind: 'worker',
    full: { jobs: 10_000, concurrency: 1 },
    quick: { jobs: 2_000, concurrency: 1 },
    warmup: { jobs: 1_000, concurrency: 1 },
  },
  {
    name: 'worker-c100',
    what: 'pre-filled queue, concurrency 100, no-op processor, completed jobs kept',
    kind: 'worker',
    full: { jobs: 30_000, concurrency: 100 },
    quick: { jobs: 6_000, concurrency: 100 },
    warmup: { jobs: 2_000, concurrency: 100 },
  },
  {
    name: 'worker-c100-no-history',
    what: "as worker-c100 with OxMQ's timing history off (timingHistory: false): its cost, by the ratio to worker-c100",
    kind: 'worker',
    full: { jobs: 30_000, concurrency: 100, timingHistory: false },
    quick: { jobs: 6_000, concurrency: 100, timingHistory: false },
    warmup: { jobs: 2_000, concurrency: 100, timingHistory: false },
  },
  {
    name: 'worker-c100-traced',
    what: 'as worker-c100, both libraries tracing every job (always-on sampler, OTLP/HTTP to a local sink)',
    kind: 'worker',
    full: { jobs: 30_000, concurrency: 100, tracing: true },
    quick: { jobs: 6_000, concurrency: 100, tracing: true },
    warmup: { jobs: 2_000, concurrency: 100, tracing: true },
  },
  {
    name: 'worker-c100-roc',
    what: 'as worker-c100 with removeOnComplete: true on every job',
    kind: 'worker',
    full: { jobs: 30_000, concurrency: 100, removeOnComplete: true },
    quick: { jobs: 6_000, concurrency: 100, removeOnComplete: true },
    warmup: { jobs: 2_000, concurrency: 100, removeOnComplete: true },
  },
  {
    name: 'batch',
    what: 'OxMQ BatchWorker (batch 100, 2 batches at once) vs bullmq Worker c=100 on the same jobs',
    kind: 'batch',
    full: { jobs: 30_000, concurrency: 100, batchSize: 100, batchConcurrency: 2 },
    quick: { jobs: 6_000, concurrency: 100, batchSize: 100, batchConcurrency: 2 },
    warmup: { jobs: 2_000, concurrency: 100, batchSize: 100, batchConcurrency: 2 },
  },
  {
    name: 'io-10k',
    what: 'pre-filled queue, every job awaits a 1 s timer, concurrency 10,000 (ideal 10,000 jobs/s)',
    kind: 'io',
    full: { jobs: 40_000, concurrency: 10_000, jobDelayMs: 1_000 },
    quick: { jobs: 15_000, concurrency: 10_000, jobDelayMs: 1_000 },
    warmup: { jobs: 3_000, concurrency: 10_000, jobDelayMs: 1_000 },
  },
  {
    name: 'idle',
    what: '50 idle Workers on an empty queue: Redis commands per second',
    kind: 'idle',
    full: { workers: 50, durationMs: 30_000 },
    // Quick: 6 s still spans a drainDelay (5 s) block per worker; keeps --quick under 3 minutes.
    quick: { workers: 50, durationMs: 6_000 },
    warmup: { workers: 50, durationMs: 1_000 },
  },
  {
    name: 'latency',
    what: 'open-loop producer at a fixed rate, Worker c=100: add-to-start (timestamp -> processedOn)',
    kind: 'latency',
    full: { ratePerSec: 1_000, durationMs: 10_000, concurrency: 100 },
    quick: { ratePerSec: 1_000, durationMs: 2_000, concurrency: 100 },
    warmup: { ratePerSec: 1_000, durationMs: 1_000, concurrency: 100 },
  },
  {
    name: 'flow-add',
    what: 'awaited FlowProducer.add, one at a time, of a 100-node tree (1 root, 3, 12, 84) in one queue',
    kind: 'flowAdd',
    full: { flows: 1_500 },
    quick: { flows: 300 },
    warmup: { flows: 50 },
  },
  {
    name: 'flow-process',
    what: 'pre-added 100-node flows, Worker c=100 on their queue, until every root completed',
    kind: 'flowProcess',
    full: { flows: 1_000, concurrency: 100 },
    quick: { flows: 200, concurrency: 100 },
    warmup: { flows: 50, concurrency: 100 },
  },
];

export function paramsFor(scenario: Scenario, mode: 'full' | 'quick', warmup: boolean) {
  const chosen = warmup ? scenario.warmup : scenario[mode];
  return { ...DEFAULT_PARAMS, ...chosen };
}
