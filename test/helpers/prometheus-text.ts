/**
 * Reading what a /metrics endpoint says: a small parser of the Prometheus text format (enough
 * for assertions: families with their TYPE, samples with labels and values), and the metric
 * names docs/metrics.md documents, per endpoint.
 */
import { parseMetricsBySection } from '../../grafana/src/metrics-contract';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedMetrics {
  /** Family name → its TYPE (counter, gauge, histogram, ...). */
  families: Map<string, string>;
  samples: Sample[];
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?\s*/g;

function unescape(value: string): string {
  return value.replace(/\\(["\\n])/g, (_, char: string) => (char === 'n' ? '\n' : char));
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

export function parsePrometheusText(text: string): ParsedMetrics {
  const families = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const typeLine = /^# TYPE (\S+) (\S+)/.exec(line);
    if (typeLine) {
      families.set(typeLine[1]!, typeLine[2]!);
      continue;
    }
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = SAMPLE_LINE.exec(line.trim());
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[3] ?? '').matchAll(LABEL)) labels[key!] = unescape(value!);
    samples.push({ name: match[1]!, labels, value: parseValue(match[4]!) });
  }
  return { families, samples };
}

/** The value of the one sample of `name` whose labels include `labels` (undefined: none). */
export function sampleValue(
  parsed: ParsedMetrics,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const matching = parsed.samples.filter(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (matching.length > 1) {
    throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  }
  return matching[0]?.value;
}

/**
 * The metric names docs/metrics.md documents, by section: `runner` under "## Worker runner",
 * `console` under "## Console" (read with the dashboards' own contract parser).
 */
export function metricSections(markdown: string): { runner: string[]; console: string[] } {
  const metrics = [...parseMetricsBySection(markdown).values()];
  const under = (heading: string) =>
    metrics.filter((metric) => metric.section.startsWith(heading)).map((metric) => metric.name);
  return { runner: under('Worker runner'), console: under('Console') };
}
