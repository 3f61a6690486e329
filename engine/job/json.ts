import type { RawJobHash } from '../backend/queue-backend';
import { decodeOptions, encodeOptions, type JobsOptions } from './options';

/**
 * bullmq's JobJson: a stored job decoded for code (options in their long form, numbers as
 * numbers) while data, return value and stack traces stay JSON text. It is what
 * job.moveToCompleted(…, fetchNext) hands back for the next job and what Job.fromJSON reads.
 */
export interface JobJson {
  id: string;
  name: string;
  /** JSON text. */
  data: string;
  opts: JobsOptions;
  progress: number | object;
  attemptsMade: number;
  attemptsStarted: number;
  finishedOn?: number;
  processedOn?: number;
  timestamp: number;
  delay?: number;
  priority?: number;
  failedReason: string;
  /** JSON text of an array of strings. */
  stacktrace?: string;
  /** JSON text. */
  returnvalue: string;
  parent?: unknown;
  parentKey?: string;
  repeatJobKey?: string;
  deduplicationId?: string;
  deferredFailure?: string;
  processedBy?: string;
  stalledCounter: number;
}

function parseOptional(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

function parseLoose(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A stored job hash (bullmq's or OxMQ's fields) as JobJson. */
export function jobJsonFromHash(id: string, hash: RawJobHash): JobJson {
  const opts = parseLoose(hash.opts);
  return {
    id,
    name: hash.name ?? '',
    data: hash.data ?? '{}',
    opts: decodeOptions(typeof opts === 'object' && opts !== null ? (opts as never) : {}),
    progress: (parseLoose(hash.progress) as number | object | undefined) ?? 0,
    attemptsMade: Number(hash.atm ?? hash.attemptsMade ?? 0),
    attemptsStarted: Number(hash.ats ?? 0),
    finishedOn: parseOptional(hash.finishedOn),
    processedOn: parseOptional(hash.processedOn),
    timestamp: Number(hash.timestamp ?? 0),
    delay: Number(hash.delay ?? 0),
    priority: Number(hash.priority ?? 0),
    failedReason: hash.failedReason ?? '',
    stacktrace: hash.stacktrace,
    returnvalue: hash.returnvalue ?? 'null',
    parent: parseLoose(hash.parent),
    parentKey: hash.parentKey,
    repeatJobKey: hash.rjk,
    deduplicationId: hash.deid,
    deferredFailure: hash.defa,
    processedBy: hash.pb,
    stalledCounter: Number(hash.stc ?? 0),
  };
}

/**
 * The reverse, for Job.fromJSON: JobJson (or a raw hash given as an object, as some callers
 * hold) back to the stored fields, so one reader (Job.fromHash) builds every Job.
 */
export function hashFromJobJson(input: Partial<JobJson> | Record<string, unknown>): RawJobHash {
  const json = input as Partial<JobJson> & Record<string, unknown>;
  const hash: RawJobHash = {};
  const put = (field: string, value: unknown) => {
    if (value === undefined || value === null) return;
    hash[field] = typeof value === 'string' ? value : JSON.stringify(value);
  };
  put('name', json.name);
  put('data', json.data);
  put(
    'opts',
    typeof json.opts === 'string' ? json.opts : json.opts ? encodeOptions(json.opts) : undefined,
  );
  put('progress', json.progress);
  put('atm', json.attemptsMade ?? json.atm);
  put('ats', json.attemptsStarted ?? json.ats);
  put('stc', json.stalledCounter ?? json.stc);
  put('finishedOn', json.finishedOn);
  put('processedOn', json.processedOn);
  put('timestamp', json.timestamp);
  put('delay', json.delay);
  put('priority', json.priority);
  if (json.failedReason) put('failedReason', json.failedReason);
  put('stacktrace', json.stacktrace);
  put('returnvalue', json.returnvalue);
  put('parent', json.parent);
  put('parentKey', json.parentKey);
  put('rjk', json.repeatJobKey ?? json.rjk);
  put('deid', json.deduplicationId ?? json.deid);
  put('defa', json.deferredFailure ?? json.defa);
  put('pb', json.processedBy ?? json.pb);
  put('traceparent', json.traceparent);
  put('tracestate', json.tracestate);
  return hash;
}
