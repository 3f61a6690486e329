/**
 * The flow scenarios of bench/child.ts (docs/benchmarks.md, "Producers and flows"): adding
 * 100-node flows with FlowProducer.add, and processing pre-added ones until every root completed.
 * "Jobs" in the result are flow nodes, so the per-job Redis figures are per node.
 */
import type { Redis } from 'ioredis';
import type { ChildConfig, RunResult } from './run-types';
import {
  benchFlow,
  flattenFlow,
  flowNodeCount,
  flowOrderProblems,
  flowParentCount,
  type FlatFlow,
} from './flow-tree';
import type { BenchLib } from './libs';
import { completion, counters, NONE, PREFIX, processCpuSince, queueState } from './run-helpers';
import { checkDelivery, counterDelta, type RedisCounters } from './stats';

type Measured = Omit<RunResult, 'lib'>;

/** Pre-adding flows for flow-process: not timed, a few adds in flight to keep rounds short. */
const PREFILL_IN_FLIGHT = 10;

/** flow-add: awaited FlowProducer.add, one flow at a time, every node checked to be waiting. */
export async function runFlowAdd(config: ChildConfig, lib: BenchLib, redis: Redis) {
  const { params, queue: name } = config;
  const producer = lib.flowProducer();
  await producer.waitUntilReady();
  const flows: FlatFlow[] = [];
  const before = await counters(redis);
  const cpu = processCpuSince();
  const t0 = performance.now();
  for (let f = 0; f < params.flows; f++) {
    flows.push(flattenFlow(await producer.add(benchFlow(name, f, params.flowShape))));
  }
  const elapsedMs = performance.now() - t0;
  const clientCpu = cpu(params.flows * flowNodeCount(params.flowShape));
  const after = await counters(redis);
  await producer.close();

  const added = flows.flatMap((flow) => flow.ids);
  const parents = params.flows * flowParentCount(params.flowShape);
  const state = await queueState(redis, name);
  const problems = checkDelivery({
    added,
    processed: null,
    jobHashes: state.jobHashes,
    keepCompleted: true,
    counts: state.counts,
    // Leaves wait to run; every node with children waits for them.
    expectedCounts: { ...NONE, wait: added.length - parents, waitingChildren: parents },
    leftoverLocks: state.leftoverLocks,
  });
  return result(params.flows, added.length, elapsedMs, before, after, problems, clientCpu);
}

/**
 * flow-process: flows pre-added (untimed), then one Worker at `concurrency` on their queue; the
 * clock stops when every node, roots last, has completed.
 */
export async function runFlowProcess(config: ChildConfig, lib: BenchLib, redis: Redis) {
  const { params, queue: name } = config;
  const producer = lib.flowProducer();
  await producer.waitUntilReady();
  const flows: FlatFlow[] = [];
  for (let start = 0; start < params.flows; start += PREFILL_IN_FLIGHT) {
    const batch = [];
    for (let f = start; f < Math.min(params.flows, start + PREFILL_IN_FLIGHT); f++) {
      batch.push(producer.add(benchFlow(name, f, params.flowShape)));
    }
    flows.push(...(await Promise.all(batch)).map(flattenFlow));
  }
  await producer.close();

  const added = flows.flatMap((flow) => flow.ids);
  const roots = new Set(flows.map((flow) => flow.root));
  const childrenOf = new Map(flows.flatMap((flow) => [...flow.childrenOf]));
  const processed: string[] = [];
  const completedIds: string[] = [];
  let rootsCompleted = 0;
  const tracker = completion(
    () => rootsCompleted >= roots.size && completedIds.length >= added.length,
  );
  const worker = lib.worker(
    name,
    async (job) => {
      processed.push(job.id);
    },
    { concurrency: params.concurrency },
  );
  worker.onError((error) => console.error(`${config.lib} worker error:`, error.message));
  worker.onCompleted((id) => {
    completedIds.push(id);
    if (roots.has(id)) rootsCompleted++;
    tracker.poke();
  });
  await worker.waitUntilReady();
  const before = await counters(redis);
  const cpu = processCpuSince();
  const t0 = performance.now();
  worker.run();
  const elapsedMs = (await tracker.done) - t0;
  const clientCpu = cpu(added.length);
  const after = await counters(redis);
  await worker.close();

  const state = await queueState(redis, name);
  const problems = checkDelivery({
    added,
    processed,
    jobHashes: state.jobHashes,
    keepCompleted: true,
    counts: state.counts,
    expectedCounts: { ...NONE, completed: added.length },
    leftoverLocks: state.leftoverLocks,
  });
  problems.push(...flowOrderProblems(processed, childrenOf));
  // Each node's 'completed' event exactly once, and every root in the completed set.
  const events = new Set(completedIds);
  if (events.size !== completedIds.length || events.size !== added.length) {
    problems.push(
      `${completedIds.length} completed events (${events.size} ids) for ${added.length} nodes`,
    );
  }
  const rootScores = await redis.zmscore(`${PREFIX}:${name}:completed`, ...roots);
  const rootsMissing = rootScores.filter((score) => score === null).length;
  if (rootsMissing) problems.push(`${rootsMissing} root(s) not in completed`);
  return result(params.flows, added.length, elapsedMs, before, after, problems, clientCpu);
}

function result(
  flows: number,
  nodes: number,
  elapsedMs: number,
  before: RedisCounters,
  after: RedisCounters,
  problems: string[],
  clientCpuUsPerNode: number | null,
): Measured {
  return {
    jobs: nodes,
    elapsedMs: Math.round(elapsedMs),
    jobsPerSec: Math.round((nodes / elapsedMs) * 1_000),
    redis: counterDelta(before, after),
    problems,
    extra: {
      flows_per_s: Math.round((flows / elapsedMs) * 1_000 * 10) / 10,
      nodes_per_flow: flows > 0 ? nodes / flows : null,
      client_cpu_us_per_job: clientCpuUsPerNode,
    },
  };
}
