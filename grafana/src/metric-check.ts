/**
 * Checks one dashboard expression against the metrics contract (docs/metrics.md): every metric
 * it reads is listed, read the way its type allows (counters and histogram series through
 * rate()/increase(), gauges not), and every label it matches or groups on exists. A typo in a
 * metric or label name does not fail in Prometheus: the panel just stays empty. This is where it
 * fails instead.
 */
import type { ContractMetric, MetricType } from './metrics-contract';
import { analyzePromQL, type PromQLAnalysis } from './promql';

/** The series a histogram exposes under its name plus one of these suffixes. */
const HISTOGRAM_SERIES = ['bucket', 'sum', 'count'] as const;
type HistogramSeries = (typeof HISTOGRAM_SERIES)[number];

const RATE_FUNCTIONS = new Set(['rate', 'irate', 'increase']);

/** Labels Prometheus adds to every scraped series (docs/metrics.md, "Conventions"). */
const SCRAPE_LABELS = ['job', 'instance'];

export interface ResolvedMetric {
  readonly contract: ContractMetric;
  /** Which histogram series the name reads, for histograms. */
  readonly series?: HistogramSeries;
}

/**
 * The contract entry a series name belongs to. An exact entry wins, so `bullmq_job_count` (a
 * gauge) is never taken for the `_count` series of a histogram named `bullmq_job`.
 */
export function resolveMetric(
  name: string,
  contract: ReadonlyMap<string, ContractMetric>,
): ResolvedMetric | undefined {
  const exact = contract.get(name);
  if (exact) return { contract: exact };
  for (const series of HISTOGRAM_SERIES) {
    const suffix = `_${series}`;
    if (!name.endsWith(suffix)) continue;
    const base = contract.get(name.slice(0, -suffix.length));
    if (base?.type === 'histogram') return { contract: base, series };
  }
  return undefined;
}

/** Problems with `expr` (empty when it is fine). */
export function checkExpression(
  expr: string,
  contract: ReadonlyMap<string, ContractMetric>,
): string[] {
  let analysis: PromQLAnalysis;
  try {
    analysis = analyzePromQL(expr);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
  if (analysis.metrics.length === 0) return ['reads no metric'];

  const problems: string[] = [];
  const knownLabels = new Set(SCRAPE_LABELS);
  for (const reference of analysis.metrics) {
    const resolved = resolveMetric(reference.name, contract);
    if (!resolved) {
      problems.push(`unknown metric ${reference.name} (not in docs/metrics.md)`);
      continue;
    }
    const labels = new Set([...SCRAPE_LABELS, ...resolved.contract.labels]);
    if (resolved.series === 'bucket') labels.add('le');
    labels.forEach((label) => knownLabels.add(label));

    const rated = reference.within.some((fn) => RATE_FUNCTIONS.has(fn));
    problems.push(...typeProblems(reference.name, resolved, rated));
    for (const label of reference.matcherLabels) {
      if (!labels.has(label)) problems.push(`${reference.name} has no label "${label}"`);
    }
  }
  // With an unknown metric its labels are unknown too: report the metric, not its labels.
  if (problems.some((problem) => problem.startsWith('unknown metric'))) return problems;
  for (const label of analysis.groupingLabels) {
    if (!knownLabels.has(label)) problems.push(`no metric here has the label "${label}"`);
  }
  return problems;
}

function typeProblems(name: string, resolved: ResolvedMetric, rated: boolean): string[] {
  const type: MetricType = resolved.contract.type;
  if (type === 'histogram' && !resolved.series) {
    return [`${name} is a histogram: read ${name}_bucket, _sum or _count`];
  }
  if ((type === 'counter' || type === 'histogram') && !rated) {
    return [`${name} only grows: read it through rate() or increase()`];
  }
  if (type === 'gauge' && rated)
    return [`${name} is a gauge: rate() and increase() are for counters`];
  return [];
}
