/**
 * One run of the cluster comparison (docs/benchmarks.md, "Redis Cluster: one queue per master"),
 * in a fresh process: 3 pre-filled queues, one OxMQ Worker per queue (worker-c100's concurrency),
 * all sharing one connection instance: an ioredis `Cluster`, or a `Redis` on the single server.
 * Config in argv[2] (JSON); prints one JSON line: the ClusterRunResult. Counters of every master
 * (and the CPU of every replica, of this process and of the whole machine) are read around the
 * measured window only.
 */
import { readFileSync } from 'node:fs';
import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from 'oxmq';
import { oxmq, type BenchWorker } from './libs';
import { completion, counters, NONE, prefill, queueState } from './run-helpers';
import { checkDelivery, counterDelta, type RedisCounters } from './stats';

export type Deployment = 'cluster' | 'single';

export interface ClusterChildConfig {
  deployment: Deployment;
  /** Cluster: every node (ioredis finds the masters); single: the one server. */
  nodes: { host: string; port: number }[];
  /** One queue per entry, with the port of the server that holds its keys. */
  queues: { name: string; port: number }[];
  /** Servers whose commands and CPU are counted: the masters, or the one server. */
  masters: number[];
  /** Replicas: only their CPU is read (the machine pays it too). */
  replicas: number[];
  jobsPerQueue: number;
  concurrency: number;
}

export interface MasterResult {
  port: number;
  /** Jobs of the queues this server holds. */
  jobs: number;
  redis: RedisCounters;
}

export interface ClusterRunResult {
  deployment: Deployment;
  jobs: number;
  elapsedMs: number;
  jobsPerSec: number;
  masters: MasterResult[];
  replicasCpuUs: number;
  /** CPU of this process (the 3 workers and their connections). */
  clientCpuUs: number;
  /** CPU time of the whole machine (every process), from /proc/stat; null where there is none. */
  machineBusyUs: number | null;
  problems: string[];
}

/** Busy CPU time of the machine, in µs: /proc/stat counts in USER_HZ, 100 per second on Linux. */
function machineBusyUs(): number | null {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  const fields = (text.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const busy = fields.slice(0, 8).reduce((sum, value, index) => {
    return index === 3 || index === 4 ? sum : sum + value;
  }, 0);
  return busy * 10_000;
}

async function cpuUs(redis: Redis): Promise<number> {
  return (await counters(redis)).cpuUs;
}

async function run(config: ClusterChildConfig, connection: RedisClient) {
  const direct = new Map<number, Redis>();
  const server = (port: number) => {
    let client = direct.get(port);
    if (!client) direct.set(port, (client = new Redis({ host: '127.0.0.1', port })));
    return client;
  };
  const lib = oxmq(connection);
  const total = config.jobsPerQueue * config.queues.length;
  try {
    const queues = config.queues.map((queue) => ({ ...queue, bench: lib.queue(queue.name) }));
    const added = new Map<string, string[]>();
    const processed = new Map<string, string[]>();
    for (const queue of queues) {
      await queue.bench.waitUntilReady();
      added.set(queue.name, await prefill(queue.bench, config.jobsPerQueue, {}));
      processed.set(queue.name, []);
    }
    let completed = 0;
    const tracker = completion(() => completed >= total);
    const workers: BenchWorker[] = queues.map((queue) => {
      const seen = processed.get(queue.name)!;
      const worker = lib.worker(
        queue.name,
        async (job) => {
          seen.push(job.id);
        },
        { concurrency: config.concurrency },
      );
      worker.onError((error) => console.error(`${queue.name} worker error:`, error.message));
      worker.onCompleted(() => {
        completed++;
        tracker.poke();
      });
      return worker;
    });
    await Promise.all(workers.map((worker) => worker.waitUntilReady()));

    const mastersBefore = await Promise.all(config.masters.map((port) => counters(server(port))));
    const replicasBefore = await Promise.all(config.replicas.map((port) => cpuUs(server(port))));
    const machineBefore = machineBusyUs();
    const clientBefore = process.cpuUsage();
    const t0 = performance.now();
    for (const worker of workers) worker.run();
    const t1 = await tracker.done;
    const clientCpu = process.cpuUsage(clientBefore);
    const machineAfter = machineBusyUs();
    const mastersAfter = await Promise.all(config.masters.map((port) => counters(server(port))));
    const replicasAfter = await Promise.all(config.replicas.map((port) => cpuUs(server(port))));
    await Promise.all(workers.map((worker) => worker.close()));
    await Promise.all(queues.map((queue) => queue.bench.close()));

    const problems: string[] = [];
    for (const queue of queues) {
      const ids = added.get(queue.name)!;
      const state = await queueState(server(queue.port), queue.name);
      const found = checkDelivery({
        added: ids,
        processed: processed.get(queue.name)!,
        jobHashes: state.jobHashes,
        keepCompleted: true,
        counts: state.counts,
        expectedCounts: { ...NONE, completed: ids.length },
        leftoverLocks: state.leftoverLocks,
      });
      problems.push(...found.map((problem) => `${queue.name}: ${problem}`));
    }
    const elapsedMs = t1 - t0;
    return {
      deployment: config.deployment,
      jobs: total,
      elapsedMs: Math.round(elapsedMs),
      jobsPerSec: Math.round((total / elapsedMs) * 1_000),
      masters: config.masters.map((port, index) => ({
        port,
        jobs: config.queues.filter((queue) => queue.port === port).length * config.jobsPerQueue,
        redis: counterDelta(mastersBefore[index]!, mastersAfter[index]!),
      })),
      replicasCpuUs: replicasAfter.reduce(
        (sum, after, index) => sum + after - replicasBefore[index]!,
        0,
      ),
      clientCpuUs: clientCpu.user + clientCpu.system,
      machineBusyUs:
        machineBefore === null || machineAfter === null ? null : machineAfter - machineBefore,
      problems,
    } satisfies ClusterRunResult;
  } finally {
    for (const client of direct.values()) client.disconnect();
  }
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as ClusterChildConfig;
  const connection: RedisClient =
    config.deployment === 'cluster'
      ? new Cluster(config.nodes, { redisOptions: { maxRetriesPerRequest: null } })
      : new Redis({ ...config.nodes[0]!, maxRetriesPerRequest: null });
  // Every Queue and Worker of the run listens on this one shared instance: more than Node's
  // default of 10 listeners per event, on purpose.
  connection.setMaxListeners(50);
  try {
    const result = await run(config, connection);
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    connection.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
