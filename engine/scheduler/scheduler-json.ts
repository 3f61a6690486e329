/** How getJobScheduler(s) report a scheduler: bullmq's JobSchedulerJson, from the stored hash. */
import { decodeOptions, type JobsOptions } from '../job/options';

/** A scheduler as getJobScheduler(s) report it (bullmq's JobSchedulerJson). */
export interface JobSchedulerJson<DataType = unknown> {
  /** The scheduler id. */
  key: string;
  /** Name of the jobs it creates. */
  name: string;
  /** When the pending iteration is due (ms). */
  next?: number;
  /** Iterations created so far. */
  iterationCount?: number;
  limit?: number;
  startDate?: number;
  endDate?: number;
  tz?: string;
  pattern?: string;
  every?: number;
  offset?: number;
  template?: { data?: DataType; opts?: JobsOptions };
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function optionalInt(text: string | undefined): number | undefined {
  return text === undefined || text === '' ? undefined : parseInt(text, 10);
}

export function toSchedulerJson<D>(id: string, hash: Record<string, string>, next: number) {
  const json: JobSchedulerJson<D> = { key: id, name: hash.name ?? '', next };
  const ic = optionalInt(hash.ic);
  if (ic !== undefined) json.iterationCount = ic;
  const ints = ['limit', 'startDate', 'endDate', 'every', 'offset'] as const;
  for (const field of ints) {
    const value = optionalInt(hash[field]);
    if (value !== undefined) json[field] = value;
  }
  if (hash.tz) json.tz = hash.tz;
  if (hash.pattern) json.pattern = hash.pattern;
  if (hash.data !== undefined || hash.opts !== undefined) {
    const template: { data?: D; opts?: JobsOptions } = {};
    if (hash.data !== undefined) template.data = parseJson(hash.data) as D;
    const opts = parseJson(hash.opts);
    if (opts && typeof opts === 'object') {
      template.opts = decodeOptions(opts as Record<string, unknown>);
    }
    json.template = template;
  }
  return json;
}
