/**
 * A small writer for Prometheus' text exposition format (version 0.0.4): each family's HELP and
 * TYPE once, then its samples, so several queues' samples of one family stay together (the
 * format requires a family's lines to be contiguous).
 *
 * Labels are separated by `, ` rather than `,`: that is how bullmq's exportPrometheusMetrics
 * writes them, and its text must come out byte for byte (Prometheus accepts both).
 */

type MetricType = 'gauge' | 'counter';

/** Label name → value, in the order they are written. */
export type Labels = readonly (readonly [name: string, value: string])[];

interface Sample {
  labels: Labels;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

/** Label values escape backslash, double quote and line feed, and nothing else. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text escapes backslash and line feed (a quote needs none there). */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** Prometheus spells the special values `+Inf`, `-Inf` and `NaN`; finite numbers as JavaScript does. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatLabels(labels: Labels): string {
  if (labels.length === 0) return '';
  return `{${labels.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(', ')}}`;
}

function formatSample(name: string, sample: Sample): string {
  return `${name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`;
}

/** The lines of one family; none for a family without samples. */
function familyLines(family: MetricFamily): string[] {
  if (family.samples.length === 0) return [];
  return [
    `# HELP ${family.name} ${escapeHelp(family.help)}`,
    `# TYPE ${family.name} ${family.type}`,
    ...family.samples.map((sample) => formatSample(family.name, sample)),
  ];
}

/** Families joined by line feeds, without a final one (append it when serving the text). */
export function renderFamilies(families: readonly MetricFamily[]): string {
  return families.flatMap(familyLines).join('\n');
}
