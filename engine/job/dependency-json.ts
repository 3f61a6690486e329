/**
 * A child job as Queue.getDependencies lists it, in the shape bullmq's listing has: a job hash
 * in serialised form, where `data`, `returnvalue` and `stacktrace` stay JSON text, the options
 * are decoded, and fields the hash lacks stay undefined. (Job.asJSON's form, engine/job/json.ts,
 * fills those in; the two differ in bullmq too.)
 */
import type { RawJobHash } from '../backend/queue-backend';
import { decodeOptions, type JobsOptions } from './options';
import { optionalInt, parseJson } from './hash-fields';

export interface DependencyJobJson {
  /** OxMQ adds the id (bullmq's listing leaves it out; the item's key carries it too). */
  id: string;
  name: string;
  data: string;
  opts: JobsOptions;
  progress: number | object;
  attemptsMade: number;
  attemptsStarted: number;
  stalledCounter: number;
  timestamp: number;
  delay: number;
  priority: number;
  finishedOn?: number;
  processedOn?: number;
  failedReason?: string;
  stacktrace?: string;
  returnvalue?: string;
  parentKey?: string;
  parent?: { id: string; queueKey: string; [flag: string]: unknown };
  repeatJobKey?: string;
  deduplicationId?: string;
  deferredFailure?: string;
  processedBy?: string;
}

/** The hash of job `id` as listed; optional fields only when the hash has them. */
export function dependencyJobJson(id: string, hash: RawJobHash): DependencyJobJson {
  const json: DependencyJobJson = {
    id,
    name: hash.name ?? '',
    data: hash.data ?? '{}',
    opts: decodeOptions(parseJson<Record<string, unknown>>(hash.opts, {})),
    progress: parseJson<number | object>(hash.progress, 0),
    // bullmq <= 5 wrote `attemptsMade`; 6 writes `atm`.
    attemptsMade: parseInt(hash.attemptsMade ?? hash.atm ?? '0', 10),
    attemptsStarted: parseInt(hash.ats ?? '0', 10),
    stalledCounter: parseInt(hash.stc ?? '0', 10),
    timestamp: parseInt(hash.timestamp ?? '0', 10),
    delay: parseInt(hash.delay ?? '0', 10),
    priority: parseInt(hash.priority ?? '0', 10),
  };
  const optional: Partial<DependencyJobJson> = {
    finishedOn: optionalInt(hash.finishedOn),
    processedOn: optionalInt(hash.processedOn),
    failedReason: hash.failedReason,
    stacktrace: hash.stacktrace,
    returnvalue: hash.returnvalue,
    parentKey: hash.parentKey,
    parent: parseJson<DependencyJobJson['parent']>(hash.parent, undefined),
    repeatJobKey: hash.rjk,
    deduplicationId: hash.deid,
    deferredFailure: hash.defa,
    processedBy: hash.pb,
  };
  for (const [field, value] of Object.entries(optional)) {
    if (value !== undefined) (json as unknown as Record<string, unknown>)[field] = value;
  }
  return json;
}
