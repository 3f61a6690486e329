/**
 * `npm run bench -- --cluster [--quick] [--rounds N]`: worker-c100 on 3 queues, one per master of
 * a local Redis Cluster (3 masters + 3 replicas, test/helpers/redis-cluster.ts), against the same
 * 3 queues on one redis-server, OxMQ on both sides (docs/benchmarks.md, "Redis Cluster: one queue
 * per master"). Each run is a fresh child (bench/cluster-child.ts) on fresh queue names after a
 * flush; the deployments alternate cluster, single, cluster, ... after a warm-up round.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startRedisCluster } from '../test/helpers/redis-cluster';
import { startRedis } from '../test/setup/redis-server';
import { runBenchChild } from './child-process';
import type { ClusterChildConfig, ClusterRunResult, Deployment } from './cluster-child';
import { formatClusterTables, summarizeCluster, type ClusterRound } from './cluster-summary';
import { SCENARIOS, paramsFor } from './scenarios';

const HOST = '127.0.0.1';
const QUEUES = 3;
const DEPLOYMENTS: readonly Deployment[] = ['cluster', 'single'];

function runChild(childFile: string, config: ClusterChildConfig): Promise<ClusterRunResult> {
  return runBenchChild<ClusterRunResult>(childFile, config, { label: config.deployment });
}

/** Slot ranges of the cluster as `CLUSTER SLOTS` gives them, each with its master's port. */
async function slotOwners(admin: Redis): Promise<{ from: number; to: number; port: number }[]> {
  const reply = (await admin.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  return reply.map(([from, to, [, port]]) => ({ from, to, port }));
}

/**
 * Fresh queue names `{bench-cluster-<tag>-q<i>-<hex>}`, the i-th one on the i-th master: the hash
 * tag is the whole name, so `CLUSTER KEYSLOT` of the name is the slot of every key of the queue.
 */
async function queueNames(admin: Redis, masters: number[], tag: string) {
  const owners = await slotOwners(admin);
  const names: { name: string; port: number }[] = [];
  for (const [index, port] of masters.entries()) {
    for (;;) {
      const name = `{bench-cluster-${tag}-q${index}-${randomBytes(3).toString('hex')}}`;
      const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', name));
      if (owners.find((range) => slot >= range.from && slot <= range.to)?.port === port) {
        names.push({ name, port });
        break;
      }
    }
  }
  return names;
}

export async function runClusterBench(
  args: { quick: boolean; rounds: number },
  childFile: string,
): Promise<number> {
  const scenario = SCENARIOS.find((entry) => entry.name === 'worker-c100');
  if (!scenario) throw new Error('the worker-c100 scenario is missing from bench/scenarios.ts');
  const started = Date.now();
  const cluster = await startRedisCluster();
  const single = await startRedis();
  const masterPorts = (await cluster.masters()).map((node) => node.port);
  const replicaPorts = (
    await Promise.all(masterPorts.map((port) => cluster.replicasOf(port)))
  ).flatMap((nodes) => nodes.map((node) => node.port));
  const masters = masterPorts.map((port) => new Redis({ host: HOST, port }));
  const singleRedis = new Redis({ host: HOST, port: single.port });
  const admin = masters[0]!;
  process.stderr.write(
    `OxMQ worker-c100 on ${QUEUES} queues: Redis Cluster (masters ${masterPorts.join(', ')}; replicas ${replicaPorts.join(', ')}) vs one redis-server (port ${single.port}), ${args.quick ? 'quick' : 'full'}, 1 warm-up + ${args.rounds} rounds\n`,
  );
  const runs: ClusterRound[] = [];
  try {
    for (let round = 0; round <= args.rounds; round++) {
      const params = paramsFor(scenario, args.quick ? 'quick' : 'full', round === 0);
      for (const deployment of DEPLOYMENTS) {
        const onCluster = deployment === 'cluster';
        // Replicas follow their master's flush.
        await Promise.all((onCluster ? masters : [singleRedis]).map((redis) => redis.flushall()));
        const names = await queueNames(admin, masterPorts, `${deployment}-r${round}`);
        const wallStart = Date.now();
        const result = await runChild(childFile, {
          deployment,
          nodes: onCluster ? cluster.nodes : [{ host: HOST, port: single.port }],
          queues: onCluster ? names : names.map(({ name }) => ({ name, port: single.port })),
          masters: onCluster ? masterPorts : [single.port],
          replicas: onCluster ? replicaPorts : [],
          jobsPerQueue: params.jobs,
          concurrency: params.concurrency,
        });
        runs.push({ ...result, round });
        const calls = result.masters.map((master) => master.redis.calls);
        const allCalls = calls.reduce((a, b) => a + b, 0);
        const shares = calls.map((n) => `${Math.round((n / allCalls) * 100)} %`).join(' / ');
        const bad = result.problems.length ? ` DELIVERY: ${result.problems.join('; ')}` : '';
        process.stderr.write(
          `  ${deployment} ${round === 0 ? 'warm-up' : `round ${round}`}: ${result.jobsPerSec} jobs/s, ${result.jobs} jobs in ${result.elapsedMs} ms, ${Math.round((allCalls / result.jobs) * 10) / 10} cmds/job, command share ${shares}${bad} (${Date.now() - wallStart} ms)\n`,
        );
      }
    }
  } finally {
    for (const redis of [...masters, singleRedis]) redis.disconnect();
    await single.stop();
    await cluster.stop();
  }
  const summary = summarizeCluster(runs);
  process.stdout.write(JSON.stringify({ scenario: 'worker-c100-cluster', ...summary }) + '\n');
  process.stdout.write('\n' + formatClusterTables(summary) + '\n');
  process.stdout.write(`total ${Math.round((Date.now() - started) / 1_000)} s\n`);
  if (summary.problems.length) {
    process.stderr.write(`exact-delivery check FAILED: ${summary.problems.join('; ')}\n`);
    return 1;
  }
  return 0;
}
