import { QueueKeys } from '../../queue/keys';
import { childCollectionKey, type ChildStatus } from '../../backend/redis/child-pages';
import type { CommandBatch } from '../../backend/redis/command-batch';
import type { JobRef } from '../../job/key';
import { traceIdOf } from '../../telemetry/trace-id';
import { DEFAULT_REDACTION, redactString, type RedactionRules } from '../redaction';

/** A job's state as bullmq's getState names it (docs/redis-keys.md). */
export type FlowNodeState =
  | 'completed'
  | 'failed'
  | 'active'
  | 'waiting'
  | 'delayed'
  | 'prioritized'
  | 'waiting-children'
  | 'unknown';

/** How many children a node has in each of its child collections (see ChildStatus). */
export type ChildCount = Record<ChildStatus, number>;

/** What the flow graph shows of one job. */
export interface FlowNodeInfo {
  /** Full key `<prefix>:<queueName>:<id>`, the node's identity in edges and cursors. */
  key: string;
  id: string;
  queueName: string;
  prefix: string;
  name: string;
  state: FlowNodeState;
  timestamp: number;
  processedOn?: number;
  finishedOn?: number;
  attemptsMade: number;
  attemptsStarted: number;
  /** The trace id of the job's W3C traceparent, when it carries a valid one. */
  traceId?: string;
  /** The first FAILED_REASON_CHARS characters of the redacted failure reason. */
  failedReason?: string;
  parentKey?: string;
  childCount: ChildCount;
  /** The job hash is gone (e.g. removed on completion) though its parent still lists it. */
  missing?: true;
}

/** How much of a failure reason a graph node carries; the job view has the rest. */
export const FAILED_REASON_CHARS = 200;

// Only the fields the graph shows: a job's data, return value and stack traces stay in Redis.
const FIELDS = [
  'name',
  'timestamp',
  'processedOn',
  'finishedOn',
  'attemptsMade',
  'atm',
  'ats',
  'traceparent',
  'failedReason',
  'parentKey',
] as const;

// Checked in the order lua/getJobState-8.lua uses (bullmq's getState, plus OxMQ's delayed
// grouped jobs), except the wait lists and group lines: LPOS there costs the list's length per
// node, so a job found in none of these is "waiting".
const STATE_PROBES: {
  state: FlowNodeState;
  command: 'zscore' | 'lpos';
  key: (keys: QueueKeys) => string;
}[] = [
  { state: 'completed', command: 'zscore', key: (keys) => keys.completed },
  { state: 'failed', command: 'zscore', key: (keys) => keys.failed },
  { state: 'delayed', command: 'zscore', key: (keys) => keys.delayed },
  { state: 'delayed', command: 'zscore', key: (keys) => keys.groupDelayed },
  { state: 'prioritized', command: 'zscore', key: (keys) => keys.prioritized },
  { state: 'active', command: 'lpos', key: (keys) => keys.active },
  { state: 'waiting-children', command: 'zscore', key: (keys) => keys.waitingChildren },
];

const COUNTS: { status: ChildStatus; command: 'hlen' | 'scard' | 'zcard' }[] = [
  { status: 'processed', command: 'hlen' },
  { status: 'unprocessed', command: 'scard' },
  { status: 'failed', command: 'zcard' },
  { status: 'ignored', command: 'hlen' },
];

/**
 * Queues the reads that describe one node (its chosen hash fields, its state, its child
 * counts: O(1) each except LPOS on the queue's active list, which concurrency keeps short) and
 * returns the decoder. The failure reason is redacted whole before it is shortened: cut first,
 * a JSON reason would no longer parse, and a value under a sensitive key could show through.
 */
export function planNodeInfo(
  batch: CommandBatch,
  ref: JobRef,
  redaction: RedactionRules = DEFAULT_REDACTION,
): (replies: unknown[]) => FlowNodeInfo {
  const keys = new QueueKeys(ref.prefix, ref.queueName);
  const fields = batch.add('hmget', ref.key, ...FIELDS);
  const probes = STATE_PROBES.map((probe) => batch.add(probe.command, probe.key(keys), ref.id));
  const counts = planChildCount(batch, ref.key);
  return (replies) => {
    const values = replies[fields] as (string | null)[];
    const field = (name: (typeof FIELDS)[number]) => values[FIELDS.indexOf(name)] ?? undefined;
    const childCount = counts(replies);
    const probe = STATE_PROBES.findIndex((_, i) => replies[probes[i]!] !== null);
    const info: FlowNodeInfo = {
      key: ref.key,
      id: ref.id,
      queueName: ref.queueName,
      prefix: ref.prefix,
      name: field('name') ?? '',
      state:
        probe !== -1
          ? STATE_PROBES[probe]!.state
          : values.every((v) => v === null)
            ? 'unknown'
            : 'waiting',
      timestamp: int(field('timestamp')) ?? 0,
      attemptsMade: int(field('attemptsMade') ?? field('atm')) ?? 0,
      attemptsStarted: int(field('ats')) ?? 0,
      childCount,
    };
    if (values.every((value) => value === null)) info.missing = true;
    const processedOn = int(field('processedOn'));
    if (processedOn !== undefined) info.processedOn = processedOn;
    const finishedOn = int(field('finishedOn'));
    if (finishedOn !== undefined) info.finishedOn = finishedOn;
    const traceId = traceIdOf(field('traceparent'));
    if (traceId) info.traceId = traceId;
    const failedReason = field('failedReason');
    if (failedReason !== undefined) {
      info.failedReason = shorten(redactString(failedReason, redaction));
    }
    const parentKey = field('parentKey');
    if (parentKey !== undefined) info.parentKey = parentKey;
    return info;
  };
}

/** Queues the four O(1) counts of a parent's child collections. */
export function planChildCount(
  batch: CommandBatch,
  parentKey: string,
): (replies: unknown[]) => ChildCount {
  const indexes = COUNTS.map(({ status, command }) =>
    batch.add(command, childCollectionKey(parentKey, status)),
  );
  return (replies) => {
    const count = {} as ChildCount;
    COUNTS.forEach(({ status }, i) => (count[status] = Number(replies[indexes[i]!] ?? 0)));
    return count;
  };
}

export function totalChildren(count: ChildCount): number {
  return count.processed + count.unprocessed + count.failed + count.ignored;
}

function int(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = parseInt(text, 10);
  return Number.isNaN(value) ? undefined : value;
}

function shorten(reason: string): string {
  if (reason.length <= FAILED_REASON_CHARS) return reason;
  const chars = Array.from(reason);
  return chars.length <= FAILED_REASON_CHARS
    ? reason
    : chars.slice(0, FAILED_REASON_CHARS).join('') + '…';
}
