/**
 * Medians over the measured rounds of one scenario, as the JSON line and the table row. Pure.
 */
import type { RunResult } from './run-types';
import { LIBS, median, ratio, type Lib } from './stats';

/** One child's run, numbered within its scenario. */
export interface RoundResult extends RunResult {
  /** 0 is the warm-up. */
  round: number;
}

export type SummaryLine = Record<string, string | number | null>;

export interface ScenarioSummary {
  scenario: string;
  skipped?: string;
  runs: readonly RoundResult[];
  line?: SummaryLine;
  problems?: string[];
}

const round1 = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

function medianOf(runs: readonly RoundResult[], pick: (run: RoundResult) => number | null) {
  return median(runs.map(pick).filter((v): v is number => v !== null));
}

export function summarize(scenario: string, runs: readonly RoundResult[]): ScenarioSummary {
  const measured = runs.filter((run) => run.round > 0);
  const problems = runs.flatMap((run) =>
    run.problems.map((problem) => `${run.lib} round ${run.round}: ${problem}`),
  );
  const line: SummaryLine = { scenario };
  const per: Record<Lib, RoundResult[]> = {
    oxmq: measured.filter((run) => run.lib === 'oxmq'),
    bullmq: measured.filter((run) => run.lib === 'bullmq'),
  };
  for (const lib of LIBS) line[`${lib}_jobs_s`] = medianOf(per[lib], (run) => run.jobsPerSec);
  line.ratio = ratio(line.oxmq_jobs_s as number | null, line.bullmq_jobs_s as number | null);
  for (const lib of LIBS) {
    line[`${lib}_redis_cpu_us_per_job`] = round1(
      medianOf(per[lib], (run) => (run.jobs > 0 ? run.redis.cpuUs / run.jobs : null)),
    );
  }
  for (const lib of LIBS) {
    line[`${lib}_cmds_per_job`] = round1(
      medianOf(per[lib], (run) => (run.jobs > 0 ? run.redis.calls / run.jobs : null)),
    );
  }
  const extras = new Set(measured.flatMap((run) => Object.keys(run.extra)));
  for (const key of [...extras].sort()) {
    for (const lib of LIBS) {
      line[`${lib}_${key}`] = round1(medianOf(per[lib], (run) => run.extra[key] ?? null));
    }
  }
  line.rounds = Math.min(per.oxmq.length, per.bullmq.length);
  line.delivery = problems.length === 0 ? 'ok' : problems.join('; ');
  return { scenario, runs, line, problems };
}

const COLUMNS: [string, string][] = [
  ['scenario', 'scenario'],
  ['oxmq_jobs_s', 'OxMQ jobs/s'],
  ['bullmq_jobs_s', 'bullmq jobs/s'],
  ['ratio', 'ratio'],
  ['oxmq_redis_cpu_us_per_job', 'OxMQ Redis µs/job'],
  ['bullmq_redis_cpu_us_per_job', 'bullmq Redis µs/job'],
  ['oxmq_cmds_per_job', 'OxMQ cmds/job'],
  ['bullmq_cmds_per_job', 'bullmq cmds/job'],
  ['notes', 'notes'],
];

/** Scenario-specific figures, for the notes column. */
function notes(line: SummaryLine): string {
  const parts: string[] = [];
  const pair = (label: string, key: string, unit = '') => {
    const a = line[`oxmq_${key}`];
    const b = line[`bullmq_${key}`];
    if (a !== undefined || b !== undefined) parts.push(`${label} ${a}${unit} vs ${b}${unit}`);
  };
  if (line.oxmq_nodes_per_flow !== undefined) {
    parts.push(`jobs = flow nodes (${line.oxmq_nodes_per_flow} per flow)`);
  }
  pair('flows/s', 'flows_per_s');
  pair('client CPU µs/job', 'client_cpu_us_per_job');
  if (line.oxmq_ideal_jobs_s !== undefined) parts.push(`ideal ${line.oxmq_ideal_jobs_s} jobs/s`);
  pair('live heap B/in-flight job', 'heap_bytes_per_inflight_job');
  pair('heap B/in-flight job before gc', 'heap_bytes_per_inflight_job_nogc');
  pair('in flight at sample', 'in_flight_at_sample');
  pair('live heap B/job with all slots full', 'heap_bytes_per_job_at_full');
  pair('cmds/s', 'cmds_per_s');
  pair('cmds/s/worker', 'cmds_per_s_per_worker');
  pair('p50', 'latency_p50_ms', ' ms');
  pair('p99', 'latency_p99_ms', ' ms');
  if (line.delivery !== 'ok') parts.push(`DELIVERY FAILED`);
  return parts.join('; ');
}

/** A markdown table, one row per scenario (skipped ones say why). */
export function formatTable(summaries: readonly ScenarioSummary[]): string {
  const rows = summaries.map((summary) => {
    if (summary.skipped || !summary.line) {
      return COLUMNS.map(([key]) =>
        key === 'scenario'
          ? summary.scenario
          : key === 'notes'
            ? `skipped: ${summary.skipped}`
            : '-',
      );
    }
    const line = summary.line;
    return COLUMNS.map(([key]) => (key === 'notes' ? notes(line) : String(line[key] ?? '-')));
  });
  const header = COLUMNS.map(([, title]) => title);
  const out = [header, header.map(() => '---'), ...rows];
  return out.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
