/**
 * Everything the console's job page shows about one job, read with the
 * engine's Job API: the hash (one job, not a collection), its state, a page of its log lines,
 * and one page of each kind of child. Values come back as stored; the console's server module
 * redacts them before they leave the server.
 */
import type { RedisClient } from '../backend/redis/connection';
import type { JobStateReply } from '../backend/queue-operations';
import { parseJobKey } from '../job/key';
import { traceIdOf } from '../telemetry/trace-id';
import { queueHandle } from './queue-handle';

export const JOB_DETAIL_LIMITS = {
  /** Log lines per page at most. */
  maxLogPage: 200,
  /** Children per kind in one page (SSCAN/HSCAN COUNT hints, so roughly). */
  childrenPerKind: 20,
} as const;

export interface JobLinkRef {
  /** Full job key `<prefix>:<queue>:<id>`. */
  key: string;
  prefix: string;
  queueName: string;
  id: string;
}

export interface JobDetail {
  id: string;
  name: string;
  state: JobStateReply;
  data: unknown;
  opts: Record<string, unknown>;
  progress: number | object;
  returnvalue: unknown;
  failedReason: string | null;
  stacktrace: string[];
  attemptsMade: number;
  attemptsStarted: number;
  stalledCounter: number;
  timestamp: number;
  processedOn: number | null;
  finishedOn: number | null;
  delay: number;
  priority: number;
  processedBy: string | null;
  parent: JobLinkRef | null;
  traceparent: string | null;
  tracestate: string | null;
  /** The trace id of `traceparent`, when it is a valid W3C one. */
  traceId: string | null;
}

export function jobLinkOf(key: string | undefined): JobLinkRef | null {
  const ref = key ? parseJobKey(key) : undefined;
  return ref ? { key: ref.key, prefix: ref.prefix, queueName: ref.queueName, id: ref.id } : null;
}

/** undefined when the job does not exist. */
export async function getJobDetail(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
): Promise<JobDetail | undefined> {
  const queue = queueHandle(client, prefix, queueName);
  const job = await queue.getJob(jobId);
  if (!job) return undefined;
  const state = await job.getState();
  return {
    id: job.id,
    name: job.name,
    state,
    data: job.data as unknown,
    opts: { ...job.opts } as Record<string, unknown>,
    progress: job.progress,
    returnvalue: job.returnvalue as unknown,
    failedReason: job.failedReason ?? null,
    stacktrace: job.stacktrace,
    attemptsMade: job.attemptsMade,
    attemptsStarted: job.attemptsStarted,
    stalledCounter: job.stalledCounter,
    timestamp: job.timestamp,
    processedOn: job.processedOn ?? null,
    finishedOn: job.finishedOn ?? null,
    delay: job.delay,
    priority: job.priority,
    processedBy: job.processedBy ?? null,
    parent: jobLinkOf(job.parentKey),
    traceparent: job.traceparent ?? null,
    tracestate: job.tracestate ?? null,
    traceId: traceIdOf(job.traceparent, job.opts.telemetry?.metadata) ?? null,
  };
}

export interface JobLogPage {
  /** Oldest first within the page; `index` is the line's position in the whole log. */
  lines: { index: number; text: string }[];
  /** Lines the job keeps in all. */
  count: number;
}

/** The newest lines: page 1 is the last `pageSize` lines, page 2 the ones before, and so on. */
export async function getJobLogPage(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
  page: number,
  pageSize: number,
): Promise<JobLogPage> {
  const size = Math.max(1, Math.min(pageSize, JOB_DETAIL_LIMITS.maxLogPage));
  const start = (Math.max(1, page) - 1) * size;
  const queue = queueHandle(client, prefix, queueName);
  // asc=false counts from the tail: [start, end] are the newest lines, answered newest first.
  const { logs, count } = await queue.getJobLogs(jobId, start, start + size - 1, false);
  const firstIndex = count - start - logs.length;
  return {
    lines: logs.reverse().map((text, i) => ({ index: firstIndex + i, text })),
    count,
  };
}

export interface JobChildrenPage {
  /** One page of each kind; keys only (return values and reasons stay on the server). */
  processed: JobLinkRef[];
  unprocessed: JobLinkRef[];
  failed: JobLinkRef[];
  ignored: JobLinkRef[];
  counts: { processed: number; unprocessed: number; failed: number; ignored: number };
}

/** The first page of each kind of child, with the totals; the flow graph pages further. */
export async function getJobChildren(
  client: RedisClient,
  prefix: string,
  queueName: string,
  jobId: string,
): Promise<JobChildrenPage | undefined> {
  const queue = queueHandle(client, prefix, queueName);
  const job = await queue.getJob(jobId);
  if (!job) return undefined;
  const page = { cursor: 0, count: JOB_DETAIL_LIMITS.childrenPerKind };
  const [deps, counts] = await Promise.all([
    job.getDependencies({ processed: page, unprocessed: page, failed: page, ignored: page }),
    job.getDependenciesCount(),
  ]);
  const links = (keys: Iterable<string>) =>
    [...keys]
      .slice(0, JOB_DETAIL_LIMITS.childrenPerKind)
      .map(jobLinkOf)
      .filter((link): link is JobLinkRef => link !== null);
  return {
    processed: links(Object.keys(deps.processed ?? {})),
    unprocessed: links(deps.unprocessed ?? []),
    failed: links(deps.failed ?? []),
    ignored: links(Object.keys(deps.ignored ?? {})),
    counts: {
      processed: counts.processed ?? 0,
      unprocessed: counts.unprocessed ?? 0,
      failed: counts.failed ?? 0,
      ignored: counts.ignored ?? 0,
    },
  };
}
