/**
 * `npm run bench [-- --quick] [-- --rounds N] [-- --only a,b]`: every scenario of
 * docs/benchmarks.md, OxMQ against the pinned bullmq 6.7.0, side by side on one private
 * redis-server. Each run is a fresh child process (bench/child.ts); the libraries alternate
 * A B A B after a warm-up round; medians are reported. Prints one JSON line per scenario and a
 * table at the end. Exits 1 if any exact-delivery check failed. `--cluster` runs the Redis Cluster
 * comparison of bench/cluster.ts instead.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startRedis } from '../test/setup/redis-server';
import type { ChildConfig, RunResult } from './child';
import { runBenchChild } from './child-process';
import { runClusterBench } from './cluster';
import { SCENARIOS, paramsFor, type Scenario } from './scenarios';
import { alternationOrder, topCommands } from './stats';
import { formatTable, summarize, type ScenarioSummary } from './summary';

interface Args {
  quick: boolean;
  rounds: number;
  only: string[] | null;
  /** How many commands the per-run stderr line breaks down (default 8). */
  top: number;
  /** worker-c100 on 3 queues, Redis Cluster vs one server (bench/cluster.ts). */
  cluster: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { quick: false, rounds: 3, only: null, top: 8, cluster: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') args.quick = true;
    else if (arg === '--cluster') args.cluster = true;
    else if (arg === '--rounds') args.rounds = Math.max(3, parseInt(argv[++i] ?? '3', 10));
    else if (arg === '--top') args.top = parseInt(argv[++i] ?? '8', 10);
    else if (arg === '--only') args.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else throw new Error(`unknown argument ${arg}`);
  }
  return args;
}

function runChild(childFile: string, config: ChildConfig): Promise<RunResult> {
  // --expose-gc: the child settles the heap before its measured window (bench/child.ts).
  return runBenchChild<RunResult>(childFile, config, {
    label: `${config.lib} ${config.kind}`,
    nodeArgs: ['--expose-gc'],
  });
}

async function runScenario(
  scenario: Scenario,
  args: Args,
  childFile: string,
  port: number,
  redis: Redis,
): Promise<ScenarioSummary> {
  if (!scenario.kind || scenario.skip) {
    return { scenario: scenario.name, skipped: scenario.skip ?? 'no runner', runs: [] };
  }
  const runs: (RunResult & { round: number })[] = [];
  const mode = args.quick ? 'quick' : 'full';
  for (const slot of alternationOrder(args.rounds)) {
    await redis.flushdb();
    const queue = `bench-${scenario.name}-${slot.lib}-r${slot.round}-${randomBytes(3).toString('hex')}`;
    const params = paramsFor(scenario, mode, slot.warmup);
    const wallStart = Date.now();
    const result = await runChild(childFile, {
      lib: slot.lib,
      kind: scenario.kind,
      params,
      port,
      queue,
    });
    const tag = slot.warmup ? 'warm-up' : `round ${slot.round}`;
    const rate = result.jobsPerSec === null ? '' : ` ${result.jobsPerSec} jobs/s`;
    const bad = result.problems.length ? ` DELIVERY: ${result.problems.join('; ')}` : '';
    const perJob = result.jobs > 0 ? 'calls/job' : 'calls';
    process.stderr.write(
      `  ${scenario.name} ${tag} ${slot.lib}:${rate}${bad} (${Date.now() - wallStart} ms) [${perJob}: ${topCommands(result.redis, result.jobs, args.top)}]\n`,
    );
    // Warm-up runs are checked for delivery too; summarize() keeps them out of every median.
    runs.push({ ...result, round: slot.round });
  }
  await redis.flushdb();
  return summarize(scenario.name, runs);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const childFile = process.env.OXMQ_BENCH_CHILD;
  if (!childFile) throw new Error('OXMQ_BENCH_CHILD is not set: run through `npm run bench`');
  if (args.cluster) {
    const clusterChild = process.env.OXMQ_BENCH_CLUSTER_CHILD;
    if (!clusterChild)
      throw new Error('OXMQ_BENCH_CLUSTER_CHILD is not set: run through `npm run bench`');
    process.exitCode = await runClusterBench(args, clusterChild);
    return;
  }
  const server = await startRedis();
  const redis = new Redis({ host: '127.0.0.1', port: server.port });
  const started = Date.now();
  const summaries: ScenarioSummary[] = [];
  process.stderr.write(
    `OxMQ vs bullmq 6.7.0, ${args.quick ? 'quick' : 'full'}, 1 warm-up + ${args.rounds} rounds, redis on port ${server.port}\n`,
  );
  try {
    for (const scenario of SCENARIOS) {
      if (args.only && !args.only.includes(scenario.name)) continue;
      const summary = await runScenario(scenario, args, childFile, server.port, redis);
      summaries.push(summary);
      const line = summary.line ?? { scenario: summary.scenario, skipped: summary.skipped ?? null };
      process.stdout.write(JSON.stringify(line) + '\n');
    }
  } finally {
    redis.disconnect();
    await server.stop();
  }
  process.stdout.write('\n' + formatTable(summaries) + '\n');
  process.stdout.write(`total ${Math.round((Date.now() - started) / 1_000)} s\n`);
  const failed = summaries.filter((s) => s.problems && s.problems.length > 0);
  if (failed.length) {
    process.stderr.write(`exact-delivery check FAILED in: ${failed.map((s) => s.scenario)}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
