/**
 * The one server module that holds the console's Redis connection and calls engine/admin
 *. Route handlers call these functions; nothing else in app/ touches Redis.
 */
import 'server-only';
import { Redis } from 'ioredis';
import {
  appendAudit,
  getQueueOverview,
  listQueues,
  pauseQueue,
  queueExists,
  readAudit,
  resumeQueue,
  AUDIT_STREAMS,
  type AuditKind,
  type AuditPage,
  type AuditRecord,
  type QueueList,
  type QueueOverview,
} from 'oxmq/admin';
import * as admin from 'oxmq/admin';
import {
  getQueueMetrics,
  latestEventIds,
  readQueueEvents,
  type LiveEventBatch,
  type QueueMetrics,
  type QueueRef,
} from 'oxmq/admin';
import { getEnv } from './env';
import { redactionRules } from './redact';
import { RefusalThrottle } from './refusal-throttle';

export { AUDIT_DEFAULTS, AUDIT_ID_PATTERN } from 'oxmq/admin';

/** A console request should fail fast while Redis is away rather than queue for seconds. */
const COMMAND_TIMEOUT_MS = 3_000;
const HEALTH_TIMEOUT_MS = 1_500;

// Kept on globalThis so `next dev` reloads reuse one connection instead of leaking one per edit.
const holder = globalThis as typeof globalThis & { __oxmqConsoleRedis?: Redis };

function redis(): Redis {
  if (!holder.__oxmqConsoleRedis) {
    const client = new Redis(getEnv().REDIS_URL, {
      connectionName: 'oxmq:console',
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
    });
    // Without a listener ioredis logs every reconnect failure as an unhandled error event.
    client.on('error', (error: Error) => {
      console.error(`OxMQ console: Redis error: ${error.message}`);
    });
    holder.__oxmqConsoleRedis = client;
  }
  return holder.__oxmqConsoleRedis;
}

export function configuredPrefixes(): readonly string[] {
  return getEnv().OXMQ_PREFIXES;
}

export function isReadOnly(): boolean {
  return getEnv().OXMQ_READ_ONLY;
}

/** True when Redis answers PING within the health timeout. */
export async function pingRedis(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
  });
  try {
    const ping = redis()
      .ping()
      .then((reply) => reply === 'PONG')
      .catch(() => false);
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function discoverQueues(): Promise<QueueList> {
  return listQueues(redis(), configuredPrefixes());
}

/** Where a job id exists among the discovered queues (the quick-jump box). */
export async function findJobEverywhere(id: string): Promise<admin.JobLocation[]> {
  const { queues } = await discoverQueues();
  return admin.findJobEverywhere(redis(), queues, id);
}

export function queueOverview(prefix: string, name: string): Promise<QueueOverview> {
  return getQueueOverview(redis(), prefix, name, {
    oldBacklogMinutes: getEnv().OXMQ_OLD_BACKLOG_MINUTES,
  });
}

/** Overviews of a page of queues: one CLIENT LIST for the page, not one per queue. */
export function queueOverviews(queues: readonly QueueRef[]): Promise<QueueOverview[]> {
  return admin.getQueueOverviews(redis(), queues, {
    oldBacklogMinutes: getEnv().OXMQ_OLD_BACKLOG_MINUTES,
  });
}

export function hasQueue(prefix: string, name: string): Promise<boolean> {
  return queueExists(redis(), prefix, name);
}

/** The queues of `refs` that exist (their meta hash does), in one round trip. */
export async function existingQueues(refs: readonly QueueRef[]): Promise<QueueRef[]> {
  if (refs.length === 0) return [];
  const pipeline = redis().pipeline();
  for (const ref of refs)
    pipeline.exists(admin.queueHandle(redis(), ref.prefix, ref.name).keys.meta);
  const replies = (await pipeline.exec()) ?? [];
  return refs.filter((_, index) => replies[index]?.[1] === 1);
}

export function pause(prefix: string, name: string): Promise<void> {
  return pauseQueue(redis(), prefix, name);
}

export function resume(prefix: string, name: string): Promise<void> {
  return resumeQueue(redis(), prefix, name);
}

const refusals = new RefusalThrottle();
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Writes one audit record: to stdout as a JSON line (every record: the append-only copy a log
 * collector ships, docs/security.md), and to its Redis stream, refused requests through the
 * per-actor throttle.
 */
export async function recordAudit(record: AuditRecord): Promise<void> {
  const kind: AuditKind = record.outcome === 'denied' ? 'refused' : 'accepted';
  process.stdout.write(
    `${JSON.stringify({ type: 'oxmq.audit', time: new Date().toISOString(), kind, ...record })}\n`,
  );
  let suppressed = 0;
  if (kind === 'refused') {
    const admitted = refusals.admit(record.actor);
    if (!admitted.write) return;
    suppressed = admitted.suppressed;
  }
  const stream = AUDIT_STREAMS[kind];
  await appendAudit(redis(), suppressed > 0 ? { ...record, suppressed } : record, {
    key: stream.key,
    maxLen: stream.maxLen,
    retentionMs: getEnv().OXMQ_AUDIT_RETENTION_DAYS * DAY_MS,
  });
}

export function auditPage(opts: {
  before?: string;
  count: number;
  kind: AuditKind;
}): Promise<AuditPage> {
  return readAudit(redis(), {
    before: opts.before,
    count: opts.count,
    key: AUDIT_STREAMS[opts.kind].key,
  });
}

// ---- queue page ----
type ScanRequest = Omit<admin.JobScanOptions, 'redaction' | 'withData'>;

/** A walk whose kept jobs are answered as `view` makes them under the rules in force. */
async function* redactedWalk<T>(
  prefix: string,
  name: string,
  opts: ScanRequest,
  withData: boolean,
  view: (job: admin.JobScanStep['jobs'][number], rules: admin.RedactionRules) => T,
) {
  const rules = redactionRules();
  const walk = admin.scanJobs(redis(), prefix, name, { ...opts, redaction: rules, withData });
  for await (const step of walk) yield { ...step, views: step.jobs.map((job) => view(job, rules)) };
}

// One thin pass-through per engine/admin call, so routes never see the Redis client. Every read
// that carries job text answers its redacted view (engine/admin/redacted-views.ts), and search
// and bulk filters match against that same view, so what a route returns or counts never
// depends on a redacted value.
export const queuePage = {
  listJobs: async (prefix: string, name: string, opts: Parameters<typeof admin.listJobs>[3]) => {
    const page = await admin.listJobs(redis(), prefix, name, opts);
    const rules = redactionRules();
    return { ...page, jobs: page.jobs.map((row) => admin.redactJobRow(row, rules)) };
  },
  findJob: async (prefix: string, name: string, id: string) => {
    const row = await admin.findJob(redis(), prefix, name, id);
    return row && admin.redactJobRow(row, redactionRules());
  },
  searchJobs: async (prefix: string, name: string, opts: admin.JobSearchOptions) => {
    const rules = redactionRules();
    const result = await admin.searchJobs(redis(), prefix, name, { ...opts, redaction: rules });
    return { ...result, matches: result.matches.map((row) => admin.redactJobRow(row, rules)) };
  },
  /** A walk of a whole state (engine/admin/job-scan.ts), each kept job as its redacted row. */
  scanRows: (prefix: string, name: string, opts: ScanRequest) =>
    redactedWalk(prefix, name, opts, false, (job, rules) =>
      admin.redactJobRow(admin.toJobRow(job), rules),
    ),
  /** The same walk with data and return values, each kept job as its redacted export record. */
  scanRecords: (prefix: string, name: string, opts: ScanRequest) =>
    redactedWalk(prefix, name, opts, true, (job, rules) =>
      admin.redactExportRecord(admin.toExportRecord(job, opts.state), rules),
    ),
  actOnSelection: (prefix: string, name: string, action: admin.BulkAction, ids: string[]) =>
    admin.actOnSelection(redis(), prefix, name, action, ids),
  createBulkOp: (input: Parameters<typeof admin.createBulkOp>[1]) =>
    admin.createBulkOp(redis(), input),
  getBulkOp: (id: string) => admin.getBulkOp(redis(), id),
  runBulkChunk: (id: string, chunk?: number) =>
    admin.runBulkChunk(redis(), id, chunk, redactionRules()),
  cancelBulkOp: (id: string) => admin.cancelBulkOp(redis(), id),
  errorGroups: (prefix: string, name: string, opts: admin.ErrorGroupScanOptions) =>
    admin.groupFailedJobs(redis(), prefix, name, { ...opts, redaction: redactionRules() }),
  diagnose: (prefix: string, name: string) => admin.diagnoseQueue(redis(), prefix, name),
  drain: (prefix: string, name: string, delayed: boolean) =>
    admin.drainQueue(redis(), prefix, name, delayed),
  clean: (prefix: string, name: string, opts: Parameters<typeof admin.cleanQueue>[3]) =>
    admin.cleanQueue(redis(), prefix, name, opts),
  obliterate: (prefix: string, name: string, force: boolean) =>
    admin.obliterateQueue(redis(), prefix, name, force),
  getLimits: (prefix: string, name: string) => admin.getQueueLimits(redis(), prefix, name),
  setLimits: (prefix: string, name: string, input: Parameters<typeof admin.setQueueLimits>[3]) =>
    admin.setQueueLimits(redis(), prefix, name, input),
};

// ---- workers, metrics and live events ----
/** Workers of many queues: connections merged with OxMQ heartbeats (engine/admin/worker-roster.ts). */
export function workerRoster(queues: readonly QueueRef[]) {
  return admin.listWorkerRoster(redis(), queues);
}

/** The live OxMQ workers of one queue (heartbeat records), and commands to them. */
export const workerControl = {
  list: (prefix: string, name: string, limit: number) =>
    admin.listWorkerHeartbeats(redis(), prefix, name, { limit }),
  quiet: (prefix: string, name: string, workerId: string) =>
    admin.quietWorker(redis(), prefix, name, workerId),
  resume: (prefix: string, name: string, workerId: string) =>
    admin.resumeWorker(redis(), prefix, name, workerId),
  cancelJob: (prefix: string, name: string, jobId: string, reason: string) =>
    admin.cancelActiveJob(redis(), prefix, name, jobId, reason),
};

/** Completed and failed per minute summed over the queues (engine/admin/metrics-total.ts). */
export function totalThroughput(queues: readonly QueueRef[], minutes: number) {
  return admin.getTotalThroughput(redis(), queues, { minutes });
}

export function queueMetrics(queue: QueueRef, minutes: number): Promise<QueueMetrics> {
  return getQueueMetrics(redis(), queue, { minutes });
}

export function latestLiveEventIds(queues: readonly QueueRef[]): Promise<string[]> {
  return latestEventIds(redis(), queues);
}

/**
 * A dedicated connection for the live-events reader: XREAD BLOCK holds a connection for the
 * whole wait, so it may not share the request connection, nor have its command timeout. The
 * caller quits it when nobody listens any more.
 */
export function openLiveEventsConnection(): Redis {
  const client = new Redis(getEnv().REDIS_URL, {
    connectionName: LIVE_EVENTS_CONNECTION_NAME,
    maxRetriesPerRequest: null,
    connectTimeout: COMMAND_TIMEOUT_MS,
  });
  client.on('error', (error: Error) => {
    console.error(`OxMQ console: live events Redis error: ${error.message}`);
  });
  return client;
}

export const LIVE_EVENTS_CONNECTION_NAME = 'oxmq:console:live';

export function readLiveEvents(
  connection: Redis,
  cursors: readonly { queue: QueueRef; after: string }[],
): Promise<LiveEventBatch[]> {
  return readQueueEvents(connection, cursors);
}

// ---- job page and flows page ----
// Redacted like the queue page's reads: nothing here answers job text as stored, but for
// storedData, which only the admin's data edit uses (to keep the values it was never shown).
export const jobPage = {
  detail: async (prefix: string, name: string, id: string) => {
    const job = await admin.getJobDetail(redis(), prefix, name, id);
    return job && admin.redactJobDetail(job, redactionRules());
  },
  /** The job's data as stored (undefined: no such job); never answered to a client. */
  storedData: async (prefix: string, name: string, id: string) => {
    const job = await admin.getJobDetail(redis(), prefix, name, id);
    return job && { data: job.data };
  },
  logs: async (prefix: string, name: string, id: string, page: number, pageSize: number) =>
    admin.redactLogPage(
      await admin.getJobLogPage(redis(), prefix, name, id, page, pageSize),
      redactionRules(),
    ),
  children: (prefix: string, name: string, id: string) =>
    admin.getJobChildren(redis(), prefix, name, id),
  timeline: async (opts: admin.JobTimelineOptions) =>
    admin.redactTimeline(await admin.getJobTimeline(redis(), opts), redactionRules()),
  act: (prefix: string, name: string, id: string, action: admin.JobAction) =>
    admin.runJobAction(redis(), prefix, name, id, action),
  duplicate: (prefix: string, name: string, id: string) =>
    admin.duplicateJob(redis(), prefix, name, id),
  add: (prefix: string, name: string, job: admin.ConsoleNewJob) =>
    admin.addJobFromConsole(redis(), prefix, name, job),
};

export const flowPage = {
  rootOf: (jobKey: string) => admin.rootOf(redis(), jobKey),
  graph: (opts: admin.FlowGraphOptions) =>
    admin.getFlowGraph(redis(), { ...opts, redaction: redactionRules() }),
  children: (opts: admin.FlowChildrenOptions) =>
    admin.getFlowChildren(redis(), { ...opts, redaction: redactionRules() }),
};

// ---- Prometheus scrape (GET /api/prometheus, docs/metrics.md) ----
export function collectPrometheusMetrics(maxQueues: number): Promise<admin.ConsoleMetrics> {
  return admin.collectConsoleMetrics(redis(), configuredPrefixes(), { maxQueues });
}

// ---- job schedulers and tenant groups (engine/admin/schedulers.ts, groups.ts) ----
export const schedulerControl = {
  list: (prefix: string, name: string, opts: { page: number; pageSize: number }) =>
    admin.listSchedulers(redis(), prefix, name, opts),
  runNow: (prefix: string, name: string, id: string) =>
    admin.runSchedulerNow(redis(), prefix, name, id),
  pause: (prefix: string, name: string, id: string) =>
    admin.pauseScheduler(redis(), prefix, name, id),
  resume: (prefix: string, name: string, id: string) =>
    admin.resumeScheduler(redis(), prefix, name, id),
  edit: (
    prefix: string,
    name: string,
    id: string,
    change: Parameters<typeof admin.editSchedulerRepeat>[4],
  ) => admin.editSchedulerRepeat(redis(), prefix, name, id, change),
  remove: (prefix: string, name: string, id: string) =>
    admin.removeScheduler(redis(), prefix, name, id),
};

export const groupControl = {
  list: (prefix: string, name: string, opts: { cursor: string; count: number }) =>
    admin.listGroups(redis(), prefix, name, opts),
  act: (prefix: string, name: string, groupId: string, action: admin.GroupAction) =>
    admin.actOnGroup(redis(), prefix, name, groupId, action),
};
