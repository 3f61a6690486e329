/**
 * `oxmq/admin`: the operator's read and operate API over a Redis client, bounded reads for views,
 * never used by the worker hot path. The console's route handlers (app/api/) call it through one
 * server-only module (lib/server/oxmq.ts), by way of createAdmin.
 *
 * One redacted API: createAdmin answers every read that carries job-derived text (rows, search
 * matches, walks, detail, logs, timeline, flow nodes, error groups, cancel reasons) as its
 * redacted view (redacted-views.ts), and the free functions exported here either carry no job
 * text (counts, states, ids, keys) or redact under the rules they are given (the defaults
 * otherwise). The raw readers that createAdmin redacts (listJobs, findJob, searchJobs, scanJobs,
 * getJobDetail, getJobLogPage, getJobTimeline, toJobRow, toExportRecord) are not exported; the
 * repository's tests reach the ones they exercise through engine/internals.ts.
 */
export {
  expandFlowGraph,
  FLOW_GRAPH_DEFAULTS,
  FLOW_GRAPH_LIMITS,
  getFlowChildren,
  getFlowGraph,
  rootOf,
} from './redis/flow-graph';
export type {
  ExpandedFlow,
  ExpandFlowOptions,
  FlowChildrenOptions,
  FlowChildrenPage,
  FlowGraph,
  FlowGraphEdge,
  FlowGraphNode,
  FlowGraphOptions,
  FlowRoot,
} from './redis/flow-graph';
export { FAILED_REASON_CHARS } from './redis/flow-node-info';
export type { ChildCount, FlowNodeInfo, FlowNodeState } from './redis/flow-node-info';
export type { ChildStatus } from '../backend/redis/child-pages';
export {
  escapeGlob,
  getQueueOverview,
  getQueueOverviews,
  listQueues,
  pauseQueue,
  QUEUE_COUNT_STATES,
  QUEUE_SCAN_DEFAULTS,
  queueExists,
  resumeQueue,
} from './redis/queues';
export type {
  ListQueuesOptions,
  QueueCountState,
  QueueList,
  QueueMetricsSeries,
  QueueOverview,
  QueueOverviewOptions,
  QueueRef,
  QueueWorker,
} from './redis/queues';
export {
  compareSeverity,
  FAILURE_SPIKE_MINUTES,
  QUEUE_PROBLEM_DEFAULTS,
  queueProblems,
} from './queue-problems';
export { missingWorkers, PROBLEM_SIGNAL_LIMITS, recentStalls } from './redis/problem-signals';
export type { MissingWorker, RecentStalls } from './redis/problem-signals';
export type {
  ProblemInput,
  ProblemOptions,
  QueueProblem,
  QueueProblemKind,
  QueueProblemSeverity,
} from './queue-problems';
export { MAX_QUEUE_HANDLES, queueHandle } from './queue-handle';
export {
  appendAudit,
  AUDIT_DEFAULTS,
  AUDIT_ID_PATTERN,
  AUDIT_STREAM_KEY,
  AUDIT_REFUSED_STREAM_KEY,
  AUDIT_STREAMS,
  readAudit,
} from './redis/audit';
export type { AuditEntry, AuditKind, AuditOutcome, AuditPage, AuditRecord } from './redis/audit';
export { BACKLOG_SAMPLER_LEASE, BacklogSampler } from './redis/backlog-sampler';
export type { BacklogSamplerOptions } from './redis/backlog-sampler';
export { getHistoryAcrossQueues, getQueueHistory, HISTORY_RANGES } from './history';
export type {
  HistoryNameSummary,
  HistoryOptions,
  HistoryPoint,
  HistoryRange,
  QueueHistory,
  TimingSummary,
} from './history';
export { getHistorySparklines } from './redis/history-sparklines';
export type { HistorySparklines, QueueSparkline } from './redis/history-sparklines';
export { leaseKeys, RedisLease } from './redis/lease';
export type { LeaseOptions, LeaseState } from './redis/lease';
// ---- queue page: job listings, search, bulk operations, diagnosis ----
export { JOB_LIST_LIMITS } from './jobs';
export type { JobPage, JobRow } from './jobs';
export { jobMatcher, readRedactedPath } from './job-search';
export { JOB_SCAN_LIMITS, type JobScanOptions, type JobScanStep } from './job-scan';
export { CPU_SLICE_MS, CpuSlice, CpuTurns, SHARED_CPU_TURNS } from './cpu-turns';
export { SCAN_ORDERS, type ScanOrder } from './redis/job-window';
export { FIND_JOB_MAX_QUEUES, findJobEverywhere, type JobLocation } from './find-job-everywhere';
export { EXPORT_COLUMNS, redactExportRecord, type ExportRecord } from './job-export';
export type {
  JobFilter,
  JobSearchMode,
  JobSearchOptions,
  JobSearchResult,
  SearchStop,
} from './job-search';
// ---- redaction: the one view of job-derived text the console shows, searches and filters ----
export {
  DEFAULT_REDACT_NAMES,
  DEFAULT_REDACT_WORDS,
  DEFAULT_REDACTION,
  isSensitiveKey,
  normalizeKey,
  REDACTED,
  REDACTION_LIMITS,
  redactionRules,
  redactString,
  redactText,
  redactValue,
  restoreRedacted,
} from './redaction';
export type { RedactionRules } from './redaction';
export { redactJobDetail, redactJobRow, redactLogPage, redactTimeline } from './redacted-views';
export {
  BULK_ACTION_STATES,
  BULK_ACTIONS,
  BULK_ID_PATTERN,
  BULK_LIMITS,
  BulkActionStateError,
  bulkKey,
  cancelBulkOp,
  createBulkOp,
  getBulkOp,
  runBulkChunk,
} from './redis/bulk';
export type { BulkAction, BulkOperation, BulkStatus } from './redis/bulk';
// ---- queue page: failed jobs grouped by error, and the bulk filter acting on one group ----
export { ERROR_GROUP_LIMITS, ErrorGroupCursorError, groupFailedJobs } from './redis/error-groups';
export type { ErrorGroupScan, ErrorGroupScanOptions } from './redis/error-groups';
export { MAX_ERROR_GROUPS, mergeErrorGroups } from './error-group-merge';
export type { ErrorGroup, ErrorGroupSample, ErrorGroupTally } from './error-group-merge';
export { errorSignature, NO_REASON_SIGNATURE, SIGNATURE_LIMITS } from './error-signature';
export { bulkFilterMatcher, isErrorGroupFilter, jobErrorSignature } from './error-group-filter';
export type { BulkFilter, ErrorGroupFilter } from './error-group-filter';
export { actOnSelection, SELECTION_LIMIT } from './selection';
export { hasJobIdShape, jobKeyKind } from './redis/job-id';
export type { JobKeyKind } from './redis/job-id';
export type { SelectionResult } from './selection';
export { diagnoseQueue } from './redis/diagnose';
export type { DiagnosisCode, DiagnosisReason, QueueDiagnosis } from './redis/diagnose';
export {
  CLEAN_LIMIT,
  cleanQueue,
  drainQueue,
  getQueueLimits,
  obliterateQueue,
  setQueueLimits,
} from './queue-actions';
export type { QueueLimits } from './queue-actions';
export { rateLimitsInForce, workerLimits } from './limit-sources';
export type {
  RateLimit,
  RateLimitInForce,
  WorkerLimiterGroup,
  WorkerLimits,
} from './limit-sources';
// ---- job page: one job's detail, logs, children, timeline and actions ----
export { getJobChildren, JOB_DETAIL_LIMITS, jobLinkOf } from './job-detail';
export type { JobChildrenPage, JobDetail, JobLinkRef, JobLogPage } from './job-detail';
export { addJobFromConsole } from './add-job';
export type { ConsoleJobOptions, ConsoleNewJob } from './add-job';
export { duplicateJob, JobActionStateError, performJobAction, runJobAction } from './job-actions';
export type { JobAction } from './job-actions';
export { JOB_ACTION_STATES, jobActionOffered, jobActionRefusal } from './job-action-states';
export type { JobActionKind, JobActionState } from './job-action-states';
export { JOB_TIMELINE_DEFAULTS, JOB_TIMELINE_LIMITS } from './redis/job-timeline';
export {
  CANCEL_GRACE_MS,
  getJobCancelState,
  type JobCancelRequest,
  type JobCancelState,
} from './redis/job-cancel-state';
export type { JobTimeline, JobTimelineEntry, JobTimelineOptions } from './redis/job-timeline';
// ---- workers, metrics and live events ----
export { listWorkers, workerClientBase, workersInClientList } from './redis/workers';
export type { ConnectedWorker, QueueWorkers } from './redis/workers';
export {
  cancelActiveJob,
  listWorkerHeartbeats,
  quietWorker,
  resumeWorker,
  WORKER_HEARTBEAT_LIMITS,
} from './redis/worker-heartbeats';
export type { WorkerHeartbeatList, WorkerHeartbeatRecord } from './redis/worker-heartbeats';
export { listWorkerRoster, mergeWorkers, WORKER_ROSTER_LIMITS } from './worker-roster';
export type { QueueWorkerRoster, WorkerRosterKind, WorkerRosterRow } from './worker-roster';
export type { CancelRequestOutcome } from '../backend/queue-operations';
export { clampMinutes, getQueueMetrics, METRICS_LIMITS, toTimeline } from './metrics';
export type { MetricsPoint, MetricsTimeline, QueueMetrics } from './metrics';
export { getTotalThroughput, sumTimelines } from './metrics-total';
export type { TotalThroughput } from './metrics-total';
export {
  eventsKey,
  latestEventIds,
  LIVE_EVENTS_LIMITS,
  readQueueEvents,
} from './redis/live-events';
export type { LiveEvent, LiveEventBatch } from './redis/live-events';
// ---- Prometheus scrape of queue state (docs/metrics.md, "Console") ----
export {
  BULLMQ_COUNT_STATES,
  collectConsoleMetrics,
  CONSOLE_METRICS_DEFAULTS,
  exportQueuePrometheusMetrics,
} from './redis/prometheus';
export type {
  BullmqCountState,
  ConsoleMetrics,
  ConsoleMetricsOptions,
  QueueSnapshot,
} from './redis/prometheus';
// ---- job schedulers and tenant groups on the queue page ----
export {
  editSchedulerRepeat,
  listSchedulers,
  pauseScheduler,
  removeScheduler,
  resumeScheduler,
  runSchedulerNow,
  SCHEDULER_LIST_LIMITS,
} from './schedulers';
export type { SchedulerIteration, SchedulerPage, SchedulerRow } from './schedulers';
export {
  actOnGroup,
  GROUP_LIST_LIMITS,
  GroupNotFoundError,
  listGroups,
} from './redis/tenant-groups';
export type { GroupAction, GroupPage } from './redis/tenant-groups';
// ---- one object holding all of the above, bound to a client (create-admin.ts) ----
export { createAdmin } from './create-admin';
export type { Admin, AdminOptions, AdminScanOptions } from './create-admin';
// ---- queue integrity checker (docs/integrity.md) ----
export {
  checkQueueIntegrity,
  checkQueueIntegrityToEnd,
  emptyReport,
  INTEGRITY_LIMITS,
  INVARIANTS,
  MAX_SAMPLES,
  mergeReports,
  repairIntegrityFindings,
  repairQueueIntegrityStep,
  repairQueueIntegrityToEnd,
  SAFE_REPAIRS,
} from './redis/integrity';
export type {
  IntegrityOptions,
  IntegrityQueue,
  IntegrityReport,
  Invariant,
} from './redis/integrity';
export type { RepairableInvariant, RepairResult, RepairStep } from './redis/integrity';
