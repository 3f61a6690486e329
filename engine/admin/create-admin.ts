/**
 * One admin object bound to one Redis client: every operation the console performs, grouped by
 * what it acts on (queues, jobs, bulk, error groups, metrics, audit, live events, workers,
 * schedulers, groups, flows, Prometheus). The free functions of engine/admin/ and
 * engine/admin/redis/ are the building blocks; this is how a caller uses them without passing
 * the client, the prefixes and the redaction rules to each call, and the only way oxmq/admin
 * offers to read job text (engine/admin/index.ts).
 *
 * Every read that carries job-derived text answers its redacted view (redacted-views.ts) under
 * the `redaction` rules, and search, scan, bulk and error-group filters match against that same
 * view, so what a caller shows or counts never depends on a redacted value. The one exception is
 * `jobs.storedData`, named for it.
 */
import type { RedisClient } from '../backend/redis/connection';
/* eslint-disable @typescript-eslint/no-unused-vars -- not used in code: imported so that the
   declarations TypeScript writes for createAdmin's inferred type name these types by their own
   modules. Without an import in scope it names them through the engine's directory ('..'),
   which the package build's declaration bundler resolves to the built package and fails. */
import type { CancelRequestOutcome, CleanState, GroupInfo } from '../backend/queue-operations';
import type { Job } from '../job/job';
/* eslint-enable @typescript-eslint/no-unused-vars */
import { ValidationError } from '../errors';
import {
  appendAudit,
  AUDIT_STREAMS,
  readAudit,
  type AuditKind,
  type AuditRecord,
} from './redis/audit';
import { actOnSelection } from './selection';
import { pipelinePerItem } from './redis/cluster-reads';
import { boundIntegrity } from './redis/integrity/repair-bound';
import { cancelBulkOp, createBulkOp, getBulkOp, runBulkChunk } from './redis/bulk';
import { diagnoseQueue } from './redis/diagnose';
import { groupFailedJobs, type ErrorGroupScanOptions } from './redis/error-groups';
import { getHistoryAcrossQueues, getQueueHistory, type HistoryOptions } from './history';
import { getHistorySparklines } from './redis/history-sparklines';
import { findJobEverywhere } from './find-job-everywhere';
import {
  getFlowChildren,
  getFlowGraph,
  rootOf,
  type FlowChildrenOptions,
  type FlowGraphOptions,
} from './redis/flow-graph';
import { actOnGroup, listGroupJobs, listGroups } from './redis/tenant-groups';
import { addJobFromConsole } from './add-job';
import { duplicateJob, runJobAction } from './job-actions';
import { getJobChildren, getJobDetail, getJobLogPage } from './job-detail';
import { toExportRecord, redactExportRecord } from './job-export';
import { SHARED_CPU_TURNS } from './cpu-turns';
import { scanJobs, type JobScanOptions, type JobScanStep } from './job-scan';
import { searchJobs, type JobSearchOptions } from './job-search';
import { getJobCancelState } from './redis/job-cancel-state';
import { getJobTimeline, type JobTimelineOptions } from './redis/job-timeline';
import { jobKeyKind } from './redis/job-id';
import { findJob, listJobs, toJobRow } from './jobs';
import { latestEventIds, readQueueEvents } from './redis/live-events';
import { getQueueMetrics } from './metrics';
import { getTotalThroughput } from './metrics-total';
import { collectConsoleMetrics } from './redis/prometheus';
import { queueHandle } from './queue-handle';
import {
  cleanQueue,
  drainQueue,
  getQueueLimits,
  obliterateQueue,
  setQueueLimits,
} from './queue-actions';
import type { QueueRef } from './queue-ref';
import {
  getQueueOverview,
  getQueueOverviews,
  listQueues,
  pauseQueue,
  queueExists,
  resumeQueue,
} from './redis/queues';
import { redactJobDetail, redactJobRow, redactLogPage, redactTimeline } from './redacted-views';
import { DEFAULT_REDACTION, type RedactionRules } from './redaction';
import {
  editSchedulerRepeat,
  listSchedulers,
  pauseScheduler,
  removeScheduler,
  resumeScheduler,
  runSchedulerNow,
} from './schedulers';
import {
  cancelActiveJob,
  listWorkerHeartbeats,
  quietWorker,
  resumeWorker,
} from './redis/worker-heartbeats';
import { listWorkerRoster } from './worker-roster';

export interface AdminOptions {
  /** The key prefixes whose queues discovery, search-everywhere and Prometheus look at. */
  prefixes: readonly string[];
  /**
   * The rules every job-text read is redacted with and filters match against; a function is
   * asked on each call (rules that follow configuration). The engine defaults when omitted.
   */
  redaction?: RedactionRules | (() => RedactionRules);
  /** Minutes after which a waiting job makes an "old backlog" problem in queue overviews. */
  oldBacklogMinutes?: number;
  /** How long audit records are kept in their streams (appendAudit's retentionMs). */
  auditRetentionMs?: number;
}

/** A walk's options as a caller gives them: the redaction and data reads are the admin's. */
export type AdminScanOptions = Omit<JobScanOptions, 'redaction' | 'withData' | 'turns'>;

/** Refuses options a caller could not mean, before any call reaches Redis. */
function checkOptions(client: RedisClient, options: AdminOptions): void {
  if (!client || typeof client.pipeline !== 'function') {
    throw new ValidationError('createAdmin needs a Redis client');
  }
  if (!options || typeof options !== 'object')
    throw new ValidationError('createAdmin needs options');
  const { prefixes, redaction, oldBacklogMinutes, auditRetentionMs } = options;
  if (!Array.isArray(prefixes) || !prefixes.every((p) => typeof p === 'string' && p !== '')) {
    throw new ValidationError('createAdmin: prefixes must be an array of non-empty strings');
  }
  if (redaction !== undefined && typeof redaction !== 'function' && typeof redaction !== 'object') {
    throw new ValidationError('createAdmin: redaction must be rules or a function returning them');
  }
  for (const [key, value] of Object.entries({ oldBacklogMinutes, auditRetentionMs })) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new ValidationError(`createAdmin: ${key} must be a positive number`);
    }
  }
}

export function createAdmin(client: RedisClient, options: AdminOptions) {
  checkOptions(client, options);
  const { prefixes, oldBacklogMinutes } = options;
  const rules = (): RedactionRules =>
    typeof options.redaction === 'function'
      ? options.redaction()
      : (options.redaction ?? DEFAULT_REDACTION);
  // The CPU-heavy loops (search, walks, error groups) of every admin in the process take turns.
  const turns = SHARED_CPU_TURNS;
  // Binds the client as first argument, keeping the function's own parameter names and types.
  const bind =
    <A extends unknown[], R>(fn: (client: RedisClient, ...rest: A) => R) =>
    (...rest: A) =>
      fn(client, ...rest);

  /** A walk whose kept jobs are answered as `view` makes them under the rules in force. */
  async function* redactedWalk<T>(
    prefix: string,
    name: string,
    opts: AdminScanOptions,
    withData: boolean,
    view: (job: JobScanStep['jobs'][number], rules: RedactionRules) => T,
  ) {
    const redaction = rules();
    const walk = scanJobs(client, prefix, name, { ...opts, redaction, withData, turns });
    const slice = turns.slice();
    for await (const step of walk) {
      // An export redacts each job's data and return value: CPU work taken in slices too.
      const views: T[] = [];
      await slice.begin();
      for (const job of step.jobs) {
        views.push(view(job, redaction));
        if (slice.spent()) await slice.begin();
      }
      yield { ...step, views };
    }
  }

  const discover = (opts?: Parameters<typeof listQueues>[2]) => listQueues(client, prefixes, opts);

  return {
    prefixes,
    redaction: rules,
    queues: {
      discover,
      overview: (prefix: string, name: string) =>
        getQueueOverview(client, prefix, name, { oldBacklogMinutes }),
      /** Overviews of a page of queues: one CLIENT LIST for the page, not one per queue. */
      overviews: (queues: readonly QueueRef[]) =>
        getQueueOverviews(client, queues, { oldBacklogMinutes }),
      exists: bind(queueExists),
      /** The queues of `refs` that exist (their meta hash does), in one round trip on one server. */
      existing: async (refs: readonly QueueRef[]): Promise<QueueRef[]> => {
        const replies = await pipelinePerItem(client, refs, (pipeline, ref) =>
          pipeline.exists(queueHandle(client, ref.prefix, ref.name).keys.meta),
        );
        return refs.filter((_, index) => replies[index]?.[0]?.[1] === 1);
      },
      pause: bind(pauseQueue),
      resume: bind(resumeQueue),
      drain: bind(drainQueue),
      clean: bind(cleanQueue),
      obliterate: bind(obliterateQueue),
      limits: bind(getQueueLimits),
      setLimits: bind(setQueueLimits),
      diagnose: bind(diagnoseQueue),
    },
    jobs: {
      list: async (prefix: string, name: string, opts: Parameters<typeof listJobs>[3]) => {
        const page = await listJobs(client, prefix, name, opts);
        const redaction = rules();
        return { ...page, jobs: page.jobs.map((row) => redactJobRow(row, redaction)) };
      },
      find: async (prefix: string, name: string, id: string) => {
        const row = await findJob(client, prefix, name, id);
        return row && redactJobRow(row, rules());
      },
      /** Whether the id names a job of the queue, no key or another key (redis/job-id.ts). */
      keyKind: bind(jobKeyKind),
      /** Where a job id exists among the discovered queues (the quick-jump box). */
      findEverywhere: async (id: string) =>
        findJobEverywhere(client, (await discover()).queues, id),
      search: async (
        prefix: string,
        name: string,
        opts: Omit<JobSearchOptions, 'redaction' | 'turns'>,
      ) => {
        const redaction = rules();
        const result = await searchJobs(client, prefix, name, { ...opts, redaction, turns });
        return { ...result, matches: result.matches.map((row) => redactJobRow(row, redaction)) };
      },
      /** A walk of a whole state (job-scan.ts), each kept job as its redacted row. */
      scanRows: (prefix: string, name: string, opts: AdminScanOptions) =>
        redactedWalk(prefix, name, opts, false, (job, redaction) =>
          redactJobRow(toJobRow(job), redaction),
        ),
      /** The same walk with data and return values, each kept job as its redacted export record. */
      scanRecords: (prefix: string, name: string, opts: AdminScanOptions) =>
        redactedWalk(prefix, name, opts, true, (job, redaction) =>
          redactExportRecord(toExportRecord(job, opts.state), redaction),
        ),
      detail: async (prefix: string, name: string, id: string) => {
        const job = await getJobDetail(client, prefix, name, id);
        return job && redactJobDetail(job, rules());
      },
      /** The job's data as stored (undefined: no such job), for an edit that keeps hidden values. */
      storedData: async (prefix: string, name: string, id: string) => {
        const job = await getJobDetail(client, prefix, name, id);
        return job && { data: job.data };
      },
      logs: async (prefix: string, name: string, id: string, page: number, pageSize: number) =>
        redactLogPage(await getJobLogPage(client, prefix, name, id, page, pageSize), rules()),
      children: bind(getJobChildren),
      timeline: async (opts: JobTimelineOptions) =>
        redactTimeline(await getJobTimeline(client, opts), rules()),
      act: bind(runJobAction),
      duplicate: bind(duplicateJob),
      add: bind(addJobFromConsole),
    },
    bulk: {
      /** One action on the jobs a user ticked. */
      onSelection: bind(actOnSelection),
      create: bind(createBulkOp),
      get: bind(getBulkOp),
      runChunk: (id: string, chunk?: number) => runBulkChunk(client, id, chunk, rules()),
      cancel: bind(cancelBulkOp),
    },
    errorGroups: {
      scan: (
        prefix: string,
        name: string,
        opts: Omit<ErrorGroupScanOptions, 'redaction' | 'turns'>,
      ) => groupFailedJobs(client, prefix, name, { ...opts, redaction: rules(), turns }),
    },
    metrics: {
      queue: (queue: QueueRef, minutes: number) => getQueueMetrics(client, queue, { minutes }),
      /** Completed and failed per minute summed over the queues (metrics-total.ts). */
      total: (queues: readonly QueueRef[], minutes: number) =>
        getTotalThroughput(client, queues, { minutes }),
      /** The Prometheus scrape of queue state (docs/metrics.md, "Console"). */
      prometheus: (maxQueues: number) => collectConsoleMetrics(client, prefixes, { maxQueues }),
    },
    /** The timing and backlog history the workers and the sampler keep (history.ts). */
    history: {
      /** One queue over a range, optionally one job name's outcomes and timings. */
      queue: (queue: QueueRef, opts: Omit<HistoryOptions, 'now'>) =>
        getQueueHistory(client, queue, opts),
      /** Several queues summed point by point: reads every queue's range, so keep it short. */
      across: (queues: readonly QueueRef[], opts: Omit<HistoryOptions, 'now'>) =>
        getHistoryAcrossQueues(client, queues, opts),
      /** The last hour's completed and failed per minute: a few fields per queue (sparklines). */
      sparklines: (queues: readonly QueueRef[]) => getHistorySparklines(client, queues),
    },
    audit: {
      append: (kind: AuditKind, record: AuditRecord) =>
        appendAudit(client, record, {
          key: AUDIT_STREAMS[kind].key,
          maxLen: AUDIT_STREAMS[kind].maxLen,
          retentionMs: options.auditRetentionMs,
        }),
      read: (opts: { kind: AuditKind; before?: string; count: number }) =>
        readAudit(client, {
          before: opts.before,
          count: opts.count,
          key: AUDIT_STREAMS[opts.kind].key,
        }),
    },
    events: {
      latestIds: bind(latestEventIds),
      /**
       * XREAD BLOCK holds its connection for the whole wait, so the caller passes a connection
       * of its own (not the admin's client, which other calls share).
       */
      read: readQueueEvents,
    },
    workers: {
      /** Connections merged with OxMQ heartbeats, for many queues (worker-roster.ts). */
      roster: (queues: readonly QueueRef[]) => listWorkerRoster(client, queues),
      heartbeats: (prefix: string, name: string, limit: number) =>
        listWorkerHeartbeats(client, prefix, name, { limit }),
      quiet: bind(quietWorker),
      resume: bind(resumeWorker),
      cancelJob: bind(cancelActiveJob),
      /** A running job's cancel request and whether a force stop can work (the job page). */
      cancelState: (prefix: string, name: string, id: string) =>
        getJobCancelState(client, prefix, name, id, rules()),
    },
    schedulers: {
      list: bind(listSchedulers),
      runNow: bind(runSchedulerNow),
      pause: bind(pauseScheduler),
      resume: bind(resumeScheduler),
      edit: bind(editSchedulerRepeat),
      remove: bind(removeScheduler),
    },
    groups: {
      list: bind(listGroups),
      act: bind(actOnGroup),
      jobs: async (
        prefix: string,
        name: string,
        groupId: string,
        opts: Parameters<typeof listGroupJobs>[4],
      ) => {
        const listing = await listGroupJobs(client, prefix, name, groupId, opts);
        const redaction = rules();
        return {
          ...listing,
          waiting: listing.waiting.map((row) => redactJobRow(row, redaction)),
          active: listing.active.map((row) => redactJobRow(row, redaction)),
        };
      },
    },
    integrity: boundIntegrity(client),
    flows: {
      rootOf: (jobKey: string) => rootOf(client, jobKey),
      graph: (opts: Omit<FlowGraphOptions, 'redaction'>) =>
        getFlowGraph(client, { ...opts, redaction: rules() }),
      children: (opts: Omit<FlowChildrenOptions, 'redaction'>) =>
        getFlowChildren(client, { ...opts, redaction: rules() }),
    },
  };
}

/** The admin object createAdmin returns. */
export type Admin = ReturnType<typeof createAdmin>;
