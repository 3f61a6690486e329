/**
 * Reads the metric tables of docs/metrics.md (the contract of what the runner and the console
 * expose) so that the dashboards can be checked against it. Any markdown table whose header has
 * `Metric` and `Type` columns counts; a row it cannot read is an error, not a skipped line, so a
 * malformed contract cannot silently let every name through.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface ContractMetric {
  readonly name: string;
  readonly type: MetricType;
  /** The metric's own labels (Prometheus adds `job` and `instance`; histograms have `le`). */
  readonly labels: readonly string[];
}

/** A metric with the `## ` heading its table stands under: which endpoint exposes it. */
export interface SectionedMetric extends ContractMetric {
  readonly section: string;
}

const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram'];

export function parseMetricsContract(markdown: string): Map<string, ContractMetric> {
  const metrics = new Map<string, ContractMetric>();
  for (const [name, { section: _section, ...metric }] of parseMetricsBySection(markdown)) {
    metrics.set(name, metric);
  }
  return metrics;
}

/** parseMetricsContract, each metric with the section of docs/metrics.md it is listed in. */
export function parseMetricsBySection(markdown: string): Map<string, SectionedMetric> {
  const metrics = new Map<string, SectionedMetric>();
  const lines = markdown.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.startsWith('## ')) section = lines[i]!.slice(3).trim();
    const header = tableCells(lines[i] ?? '');
    const metricColumn = header?.indexOf('Metric') ?? -1;
    const typeColumn = header?.indexOf('Type') ?? -1;
    const labelsColumn = header?.indexOf('Labels') ?? -1;
    if (metricColumn < 0 || typeColumn < 0 || labelsColumn < 0) continue;
    if (!/^\|[\s:|-]+\|$/.test((lines[i + 1] ?? '').trim())) {
      throw new Error(`docs/metrics.md line ${i + 2}: a metric table without a separator row`);
    }
    for (i += 2; i < lines.length; i++) {
      const row = tableCells(lines[i] ?? '');
      if (!row) break;
      const where = `docs/metrics.md line ${i + 1}`;
      const name = /^`([a-zA-Z_:][a-zA-Z0-9_:]*)`$/.exec(row[metricColumn] ?? '')?.[1];
      if (!name) throw new Error(`${where}: no metric name in backticks`);
      const type = TYPES.find((t) => t === row[typeColumn]);
      if (!type) throw new Error(`${where}: unknown type "${row[typeColumn] ?? ''}"`);
      if (metrics.has(name)) throw new Error(`${where}: ${name} listed twice`);
      const labels = [...(row[labelsColumn] ?? '').matchAll(/`([a-zA-Z_][a-zA-Z0-9_]*)`/g)].map(
        (match) => match[1] ?? '',
      );
      metrics.set(name, { name, type, labels, section });
    }
  }
  if (metrics.size === 0) throw new Error('docs/metrics.md: no metric table found');
  return metrics;
}

/** The cells of a markdown table row, trimmed; undefined when the line is not a table row. */
function tableCells(line: string): string[] | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('|') || !trimmed.endsWith('|') || trimmed.length < 2) return undefined;
  return trimmed
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());
}
