/**
 * Medians over the measured rounds of the cluster comparison, cluster against single server, as
 * one JSON line and two markdown tables (totals, then one row per master). Pure.
 */
import type { ClusterRunResult, Deployment } from './cluster-child';
import { median, ratio } from './stats';

export interface ClusterRound extends ClusterRunResult {
  /** 0 is the warm-up, never in a median. */
  round: number;
}

export interface DeploymentFigures {
  jobsPerSec: number | null;
  /** Commands and Redis CPU summed over the masters (single: the one server), per job. */
  cmdsPerJob: number | null;
  redisCpuUsPerJob: number | null;
  replicasCpuUsPerJob: number | null;
  clientCpuUsPerJob: number | null;
  /** CPU time per second of wall time: how many cores were busy. */
  redisCores: number | null;
  replicaCores: number | null;
  clientCores: number | null;
  machineCores: number | null;
  /** Machine minus the above: other processes (a shared machine's other work, the OS). */
  otherCores: number | null;
}

export interface MasterFigures {
  port: number;
  /** This master's share of all commands of the masters. */
  commandShare: number | null;
  /** This master's CPU per job of the queues it holds. */
  cpuUsPerJob: number | null;
  /** This master's CPU per second of wall time (1 = one core). */
  cores: number | null;
}

export interface ClusterSummary {
  rounds: number;
  cluster: DeploymentFigures;
  single: DeploymentFigures;
  masters: MasterFigures[];
  /** Largest distance of a master's command share from an even split, relative (0.05 = 5 %). */
  shareSpread: number | null;
  problems: string[];
}

const round1 = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);
const round2 = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

function medianOf(runs: readonly ClusterRound[], pick: (run: ClusterRound) => number | null) {
  return median(runs.map(pick).filter((value): value is number => value !== null));
}

function figures(runs: readonly ClusterRound[]): DeploymentFigures {
  const perJob = (pick: (run: ClusterRound) => number) =>
    round1(medianOf(runs, (run) => pick(run) / run.jobs));
  const cores = (pick: (run: ClusterRound) => number | null) =>
    round2(
      medianOf(runs, (run) => {
        const value = pick(run);
        return value === null ? null : value / (run.elapsedMs * 1_000);
      }),
    );
  const redisCpu = (run: ClusterRound) => sum(run.masters.map((master) => master.redis.cpuUs));
  return {
    jobsPerSec: medianOf(runs, (run) => run.jobsPerSec),
    cmdsPerJob: perJob((run) => sum(run.masters.map((master) => master.redis.calls))),
    redisCpuUsPerJob: perJob(redisCpu),
    replicasCpuUsPerJob: perJob((run) => run.replicasCpuUs),
    clientCpuUsPerJob: perJob((run) => run.clientCpuUs),
    redisCores: cores(redisCpu),
    replicaCores: cores((run) => run.replicasCpuUs),
    clientCores: cores((run) => run.clientCpuUs),
    machineCores: cores((run) => run.machineBusyUs),
    otherCores: cores((run) =>
      run.machineBusyUs === null
        ? null
        : run.machineBusyUs - redisCpu(run) - run.replicasCpuUs - run.clientCpuUs,
    ),
  };
}

function masterFigures(runs: readonly ClusterRound[]): MasterFigures[] {
  const ports = runs[0]?.masters.map((master) => master.port) ?? [];
  return ports.map((port, index) => {
    const pick = (run: ClusterRound) => run.masters[index]!;
    return {
      port,
      commandShare: round2(
        medianOf(
          runs,
          (run) => pick(run).redis.calls / sum(run.masters.map((master) => master.redis.calls)),
        ),
      ),
      cpuUsPerJob: round1(
        medianOf(runs, (run) => (pick(run).jobs ? pick(run).redis.cpuUs / pick(run).jobs : null)),
      ),
      cores: round2(medianOf(runs, (run) => pick(run).redis.cpuUs / (run.elapsedMs * 1_000))),
    };
  });
}

export function summarizeCluster(runs: readonly ClusterRound[]): ClusterSummary {
  const measured = (deployment: Deployment) =>
    runs.filter((run) => run.round > 0 && run.deployment === deployment);
  const clusterRuns = measured('cluster');
  const masters = masterFigures(clusterRuns);
  const shares = masters.map((master) => master.commandShare);
  const spread = shares.every((share): share is number => share !== null)
    ? Math.max(...shares.map((share) => Math.abs(share * shares.length - 1)))
    : null;
  return {
    rounds: Math.min(clusterRuns.length, measured('single').length),
    cluster: figures(clusterRuns),
    single: figures(measured('single')),
    masters,
    shareSpread: round2(spread),
    problems: runs.flatMap((run) =>
      run.problems.map((problem) => `${run.deployment} round ${run.round}: ${problem}`),
    ),
  };
}

function table(header: string[], rows: (string | number | null)[][]): string {
  const cell = (value: string | number | null) => (value === null ? '-' : String(value));
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

export function formatClusterTables(summary: ClusterSummary): string {
  const { cluster, single } = summary;
  const row = (name: string, pick: (figures: DeploymentFigures) => number | null) => [
    name,
    pick(cluster),
    pick(single),
    ratio(pick(cluster), pick(single)),
  ];
  const totals = table(
    ['figure (median of rounds)', 'cluster', 'single', 'cluster / single'],
    [
      row('jobs/s', (f) => f.jobsPerSec),
      row('Redis commands per job (sum over masters)', (f) => f.cmdsPerJob),
      row('Redis CPU µs per job (sum over masters)', (f) => f.redisCpuUsPerJob),
      row('replicas CPU µs per job', (f) => f.replicasCpuUsPerJob),
      row('client CPU µs per job', (f) => f.clientCpuUsPerJob),
      row('Redis cores busy (masters)', (f) => f.redisCores),
      row('replica cores busy', (f) => f.replicaCores),
      row('client cores busy', (f) => f.clientCores),
      row('machine cores busy (all processes)', (f) => f.machineCores),
      row('of which other processes', (f) => f.otherCores),
    ],
  );
  const perMaster = table(
    ['master', 'share of commands', 'Redis CPU µs per job of its queue', 'cores busy'],
    summary.masters.map((master) => [
      String(master.port),
      master.commandShare,
      master.cpuUsPerJob,
      master.cores,
    ]),
  );
  const spread =
    summary.shareSpread === null
      ? ''
      : `\ncommand share: at most ${Math.round(summary.shareSpread * 100)} % from an even split (${summary.shareSpread <= 0.2 ? 'within' : 'outside'} ±20 %)`;
  return `${totals}\n\n${perMaster}${spread}`;
}
