/**
 * One run of one scenario for one library, in a fresh process (so heap figures are not polluted
 * by the other library or an earlier run). Config in argv[2] (JSON); prints one JSON line:
 * the RunResult. Redis counters are read around the measured window only.
 */
import { Redis } from 'ioredis';
import { runFlowAdd, runFlowProcess } from './child-flows';
import { benchLib, type BenchJobOpts, type BenchLib } from './libs';
import { completion, counters, NONE, prefill, processCpuSince, queueState } from './run-helpers';
import type { ChildConfig, RunResult } from './run-types';
import { startBenchTracing } from './tracing';
import { checkDelivery, counterDelta, percentile, type RedisCounters } from './stats';

export type { ChildConfig, RunResult } from './run-types';

async function runScenario(
  config: ChildConfig,
  lib: BenchLib,
  redis: Redis,
): Promise<Omit<RunResult, 'lib'>> {
  const { params, queue: name, kind } = config;
  if (kind === 'flowAdd') return runFlowAdd(config, lib, redis);
  if (kind === 'flowProcess') return runFlowProcess(config, lib, redis);
  const opts: BenchJobOpts = params.removeOnComplete ? { removeOnComplete: true } : {};
  const queue = lib.queue(name);
  await queue.waitUntilReady();
  const extra: Record<string, number | null> = {};
  let added: string[] = [];
  let processed: string[] | null = null;
  let jobs = 0;
  let before: RedisCounters;
  let after: RedisCounters;
  let elapsedMs: number;

  if (kind === 'add' || kind === 'addBulk' || kind === 'addConcurrent') {
    before = await counters(redis);
    const cpu = processCpuSince();
    const t0 = performance.now();
    if (kind === 'add') {
      for (let i = 0; i < params.jobs; i++) added.push(await queue.add('bench', { i }, opts));
    } else if (kind === 'addConcurrent') {
      // As a service's request handlers do: one Queue for the process, each handler awaiting
      // its own add while the others' are in flight.
      const ids: string[] = new Array<string>(params.jobs);
      let next = 0;
      const producer = async () => {
        while (next < params.jobs) {
          const i = next++;
          ids[i] = await queue.add('bench', { i }, opts);
        }
      };
      await Promise.all(Array.from({ length: params.producers }, producer));
      added = ids;
    } else {
      for (let start = 0; start < params.jobs; start += params.bulkSize) {
        const chunk = [];
        for (let i = start; i < Math.min(params.jobs, start + params.bulkSize); i++) {
          chunk.push({ name: 'bench', data: { i }, opts });
        }
        added.push(...(await queue.addBulk(chunk)));
      }
    }
    elapsedMs = performance.now() - t0;
    extra.client_cpu_us_per_job = cpu(params.jobs);
    after = await counters(redis);
    jobs = params.jobs;
  } else if (kind === 'worker' || kind === 'batch' || kind === 'io') {
    added = await prefill(queue, params.jobs, opts);
    processed = [];
    const seen = processed;
    let completed = 0;
    let inFlight = 0;
    // io: one more heap sample the first time every slot holds a job awaiting its timer, before
    // any completes; nothing else is in transit then, so it is the cleanest per-job cost.
    let sampleAtFull: (() => void) | undefined;
    const tracker = completion(() => completed >= params.jobs);
    const worker = lib.worker(
      name,
      async (job) => {
        seen.push(job.id);
        if (params.jobDelayMs > 0) {
          inFlight++;
          if (inFlight === params.concurrency && sampleAtFull) {
            setImmediate(sampleAtFull);
            sampleAtFull = undefined;
          }
          await new Promise((resolve) => setTimeout(resolve, params.jobDelayMs));
          inFlight--;
        }
      },
      // batch: OxMQ runs a BatchWorker; bullmq, which has none, its Worker at `concurrency`.
      kind === 'batch' && config.lib === 'oxmq'
        ? { concurrency: params.batchConcurrency, batchSize: params.batchSize }
        : { concurrency: params.concurrency, timingHistory: params.timingHistory },
    );
    worker.onError((error) => console.error(`${config.lib} worker error:`, error.message));
    worker.onCompleted(() => {
      completed++;
      tracker.poke();
    });
    await worker.waitUntilReady();
    const gc = (globalThis as { gc?: () => void }).gc;
    let heapTimer: NodeJS.Timeout | undefined;
    if (kind === 'io') {
      gc?.();
      const baseline = process.memoryUsage().heapUsed;
      extra.gc = gc ? 1 : 0;
      // A sample 1.5 s in (the first wave completing, the second starting: what a worker in its
      // steady state carries, completions in transit included, divided by the jobs awaiting
      // their timer) and one when all slots are first full (sampleAtFull above).
      // heap_bytes_per_inflight_job: live heap (after a full gc, when --expose-gc is on);
      // ..._nogc: heapUsed as it was, garbage included (what a process actually carries).
      const perJob = (heap: number) =>
        inFlight > 0 ? Math.round((heap - baseline) / inFlight) : null;
      extra.heap_bytes_per_job_at_full = null;
      sampleAtFull = () => {
        extra.in_flight_at_full_sample = inFlight;
        gc?.();
        extra.heap_bytes_per_job_at_full = perJob(process.memoryUsage().heapUsed);
      };
      heapTimer = setTimeout(() => {
        extra.in_flight_at_sample = inFlight;
        extra.heap_bytes_per_inflight_job_nogc = perJob(process.memoryUsage().heapUsed);
        gc?.();
        extra.heap_bytes_per_inflight_job = perJob(process.memoryUsage().heapUsed);
      }, params.jobDelayMs * 1.5);
    }
    before = await counters(redis);
    const cpu = processCpuSince();
    const t0 = performance.now();
    worker.run();
    const t1 = await tracker.done;
    elapsedMs = t1 - t0;
    extra.client_cpu_us_per_job = cpu(params.jobs);
    after = await counters(redis);
    clearTimeout(heapTimer);
    jobs = params.jobs;
    if (kind === 'io') {
      // Waves of `concurrency` jobs, each wave lasting jobDelayMs: the best any worker can do.
      const waves = Math.ceil(params.jobs / params.concurrency);
      extra.ideal_jobs_s = Math.round((params.jobs / (waves * params.jobDelayMs)) * 1_000);
    }
    await worker.close();
  } else if (kind === 'idle') {
    const workers = Array.from({ length: params.workers }, () =>
      lib.worker(name, async () => undefined, { concurrency: 1 }),
    );
    for (const worker of workers) {
      worker.onError((error) => console.error(`${config.lib} worker error:`, error.message));
    }
    await Promise.all(workers.map((worker) => worker.waitUntilReady()));
    for (const worker of workers) worker.run();
    // Start-up (first fetch, first stalled check) is not idling.
    await new Promise((resolve) => setTimeout(resolve, 500));
    before = await counters(redis);
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, params.durationMs));
    elapsedMs = performance.now() - t0;
    after = await counters(redis);
    await Promise.all(workers.map((worker) => worker.close()));
    processed = [];
    const calls = after.calls - before.calls;
    extra.cmds_per_s = Math.round((calls / elapsedMs) * 1_000 * 10) / 10;
    extra.cmds_per_s_per_worker =
      Math.round((calls / elapsedMs / params.workers) * 1_000 * 100) / 100;
  } else {
    // latency: an open-loop producer adds at a fixed rate whatever the worker does.
    const total = Math.round((params.ratePerSec * params.durationMs) / 1_000);
    processed = [];
    const seen = processed;
    const latencies: number[] = [];
    let completed = 0;
    const tracker = completion(() => completed >= total);
    const worker = lib.worker(
      name,
      async (job) => {
        seen.push(job.id);
        latencies.push(job.processedOn === undefined ? NaN : job.processedOn - job.timestamp);
      },
      { concurrency: params.concurrency },
    );
    worker.onError((error) => console.error(`${config.lib} worker error:`, error.message));
    worker.onCompleted(() => {
      completed++;
      tracker.poke();
    });
    await worker.waitUntilReady();
    worker.run();
    await new Promise((resolve) => setTimeout(resolve, 500));
    before = await counters(redis);
    const t0 = performance.now();
    const adds: Promise<string>[] = [];
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(
          total,
          Math.floor(((performance.now() - t0) * params.ratePerSec) / 1_000) + 1,
        );
        while (adds.length < due) adds.push(queue.add('bench', { i: adds.length }, opts));
        if (adds.length >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 2);
    });
    added = await Promise.all(adds);
    const t1 = await tracker.done;
    elapsedMs = t1 - t0;
    after = await counters(redis);
    await worker.close();
    jobs = total;
    const valid = latencies.filter((l) => Number.isFinite(l));
    extra.latency_p50_ms = percentile(valid, 50);
    extra.latency_p99_ms = percentile(valid, 99);
    extra.latency_max_ms = percentile(valid, 100);
    extra.target_rate = params.ratePerSec;
  }
  await queue.close();

  const state = await queueState(redis, name);
  const keep = !params.removeOnComplete;
  const expectedCounts =
    processed === null
      ? { ...NONE, wait: added.length }
      : { ...NONE, completed: keep ? added.length : 0 };
  const problems = checkDelivery({
    added,
    processed,
    jobHashes: state.jobHashes,
    keepCompleted: keep,
    counts: state.counts,
    expectedCounts,
    leftoverLocks: state.leftoverLocks,
  });
  return {
    jobs,
    elapsedMs: Math.round(elapsedMs),
    jobsPerSec: jobs > 0 ? Math.round((jobs / elapsedMs) * 1_000) : null,
    redis: counterDelta(before, after),
    problems,
    extra,
  };
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
  const connection = { host: '127.0.0.1', port: config.port };
  const redis = new Redis(connection);
  const tracing = config.params.tracing ? await startBenchTracing() : undefined;
  try {
    const lib = benchLib(config.lib, connection, tracing?.bullmqTelemetry);
    const result = await runScenario(config, lib, redis);
    await tracing?.stop();
    if (tracing) result.extra.exported_kb = Math.round(tracing.receivedBytes() / 1024);
    process.stdout.write(JSON.stringify({ lib: config.lib, ...result }) + '\n');
  } finally {
    redis.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
