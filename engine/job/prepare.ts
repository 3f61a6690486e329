import type { NewJob, ParentLinkFields } from '../backend/queue-backend';
import { ValidationError } from '../errors';
import {
  encodeOptions,
  serializeData,
  validateJobOptions,
  type DurableOptions,
  type JobsOptions,
} from './options';
import { resolveOptionAliases } from './option-aliases';
import type { TraceCarrier } from '../telemetry/job-tracer';

export interface PreparedJob {
  job: NewJob;
  /** The merged options the Job object reports. */
  opts: JobsOptions;
  /** How the add waits for replicas; an option of the add, not of the job. */
  durable?: DurableOptions;
}

/** The `parent` field a child stores: where its parent lives plus its failure policy flag. */
export function parentLinkFor(
  opts: JobsOptions,
): { key: string; link: ParentLinkFields } | undefined {
  const parent = opts.parent;
  if (!parent) return undefined;
  const link: ParentLinkFields = { id: parent.id, queueKey: parent.queue };
  if (opts.failParentOnFailure) link.fpof = true;
  if (opts.continueParentOnFailure) link.cpof = true;
  if (opts.ignoreDependencyOnFailure) link.idof = true;
  if (opts.removeDependencyOnFailure) link.rdof = true;
  return { key: `${parent.queue}:${parent.id}`, link };
}

/**
 * Validates and encodes one job for the add scripts; throws ValidationError before anything is
 * written. `defaults` are the queue's defaultJobOptions (shallowly merged, as bullmq does).
 */
export function prepareJob(
  name: unknown,
  data: unknown,
  opts: JobsOptions = {},
  defaults: JobsOptions = {},
): PreparedJob {
  if (typeof name !== 'string') throw new ValidationError('job name must be a string');
  if (opts === null || typeof opts !== 'object' || Array.isArray(opts)) {
    throw new ValidationError('job options must be an object');
  }
  const { durable, ...merged }: JobsOptions = {
    ...resolveOptionAliases(defaults),
    ...resolveOptionAliases(opts),
  };
  validateJobOptions({ ...merged, durable });
  const fields: Record<string, string> = {};
  if (merged.traceparent) fields.traceparent = merged.traceparent;
  if (merged.tracestate) fields.tracestate = merged.tracestate;
  return {
    opts: merged,
    durable,
    job: {
      name,
      data: serializeData(data, merged.sizeLimit),
      opts: JSON.stringify(encodeOptions(merged)),
      timestamp: merged.timestamp ?? Date.now(),
      delay: merged.delay ?? 0,
      priority: merged.priority ?? 0,
      lifo: merged.lifo === true,
      customId: merged.jobId,
      fields,
      parent: parentLinkFor(merged),
      deduplication: merged.deduplication,
      groupId: merged.group?.id,
    },
  };
}

/**
 * The prepared job carrying a producer span's context: `traceparent` / `tracestate` hash fields
 * (read by OxMQ) and bullmq's `tm` metadata in the options (read by bullmq workers with a
 * telemetry adapter); `omitContext` writes nothing. As bullmq does, the span's metadata replaces
 * the caller's for a single add (`replaceMetadata`: the caller's context is the span's parent),
 * while bulk adds and flows keep what the caller gave.
 */
export function withTraceCarrier(
  prepared: PreparedJob,
  carrier: TraceCarrier,
  replaceMetadata = false,
): PreparedJob {
  const telemetry = prepared.opts.telemetry;
  if (telemetry?.omitContext || !carrier.traceparent) return prepared;
  const opts: JobsOptions = {
    ...prepared.opts,
    traceparent: carrier.traceparent,
    tracestate: carrier.tracestate,
  };
  const metadata = replaceMetadata
    ? (carrier.metadata ?? telemetry?.metadata)
    : (telemetry?.metadata ?? carrier.metadata);
  if (metadata) opts.telemetry = { ...telemetry, metadata };
  const fields: Record<string, string> = {
    ...prepared.job.fields,
    traceparent: carrier.traceparent,
  };
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  else delete fields.tracestate;
  return {
    ...prepared,
    opts,
    job: { ...prepared.job, opts: JSON.stringify(encodeOptions(opts)), fields },
  };
}
