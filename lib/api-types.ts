/**
 * The console's JSON API contract: every response body, declared once and imported by the route
 * handlers (app/api/) and the react-query hooks (components/). Type-only imports from the engine
 * are erased at build time, so client code never bundles engine code.
 */
import type { AuditEntry, QueueOverview } from 'oxmq/admin';
import type { Role } from './roles';

export type {
  AuditEntry,
  AuditKind,
  AuditOutcome,
  QueueCountState,
  QueueMetricsSeries,
  QueueOverview,
  QueueProblem,
  QueueProblemKind,
  QueueProblemSeverity,
} from 'oxmq/admin';

/** Every error answer: a stable machine code, a human message, and zod issues for 422. */
export interface ApiError {
  code: ApiErrorCode;
  message: string;
  issues?: { path: (string | number)[]; message: string }[];
}

export type ApiErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'READ_ONLY'
  | 'CROSS_ORIGIN'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INVALID_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'TOO_MANY_STREAMS'
  | 'TOO_MANY_ATTEMPTS'
  | 'SIGN_IN_BUSY'
  | 'INTERNAL';

export interface HealthResponse {
  status: 'ok' | 'unavailable';
}

export interface QueueListResponse {
  queues: QueueOverview[];
  /** Queues discovered in total (this response holds one page of them). */
  total: number;
  page: number;
  pageSize: number;
  /** False when discovery hit its scan budget: there may be queues not listed. */
  complete: boolean;
  /** Whether the server refuses mutations (OXMQ_READ_ONLY). */
  readOnly: boolean;
  /** The link settings, as in SessionInfo. */
  links: ConsoleLinks;
}

export type QueueOverviewResponse = QueueOverview;

export interface QueueActionResponse {
  prefix: string;
  name: string;
  paused: boolean;
}

export interface AuditListResponse {
  entries: AuditEntry[];
  /** Cursor for the next (older) page, null at the end. */
  next: string | null;
}

export interface SessionInfo {
  username: string;
  role: Role;
  readOnly: boolean;
  links: ConsoleLinks;
}

/** Links to the tools around the console (lib/links.ts builds them); null when not set. */
export interface ConsoleLinks {
  /** OXMQ_TRACE_URL: a trace viewer URL with `{traceId}` where the id goes. */
  traceUrl: string | null;
  /** OXMQ_GRAFANA_URL: the base URL of a Grafana holding OxMQ's dashboards. */
  grafanaUrl: string | null;
}

// ---- queue page ----
export type {
  BulkAction,
  BulkOperation,
  BulkStatus,
  DiagnosisCode,
  DiagnosisReason,
  JobRow,
  JobSearchMode,
  QueueDiagnosis,
  QueueLimits,
  SelectionResult,
} from 'oxmq/admin';

export type JobListResponse = import('oxmq/admin').JobPage;

/** A search: by id (a direct lookup: `scanned` 0) or a bounded scan of one state. */
export type JobSearchResponse = import('oxmq/admin').JobSearchResult & {
  mode: 'id' | 'name' | 'text' | 'path';
};

export type BulkOperationResponse = import('oxmq/admin').BulkOperation;

/** One call's failed jobs grouped by error (GET .../error-groups); the page merges calls. */
export type ErrorGroupsResponse = import('oxmq/admin').ErrorGroupScan;
export type { ErrorGroup, ErrorGroupTally } from 'oxmq/admin';

export interface QueueCleanResponse {
  removed: number;
}

export interface QueueOkResponse {
  ok: true;
}

// ---- workers, metrics and live events ----
export type {
  ConnectedWorker,
  LiveEvent,
  LiveEventBatch,
  MetricsPoint,
  MetricsTimeline,
  QueueMetrics,
  QueueWorkers,
} from 'oxmq/admin';

export type { QueueWorkerRoster, WorkerRosterKind, WorkerRosterRow } from 'oxmq/admin';

/** GET /api/workers: each queue's connections and its workers merged with their heartbeats. */
export interface WorkersResponse {
  queues: import('oxmq/admin').QueueWorkerRoster[];
  total: number;
  page: number;
  pageSize: number;
  /** False when queue discovery hit its scan budget. */
  complete: boolean;
}

/** GET /api/queues/:prefix/:name/workers: the queue's live OxMQ workers, from their heartbeats. */
export interface QueueHeartbeatsResponse {
  workers: import('oxmq/admin').WorkerHeartbeatRecord[];
  /** Heartbeat index members (may include expired ones not pruned yet). */
  total: number;
}

/** POST …/workers/:workerId/quiet and …/resume. */
export interface WorkerCommandResponse {
  ok: true;
  /** The command reaches the worker on its next heartbeat (within its interval). */
  pendingUntilNextHeartbeat: true;
}

/** POST …/jobs/:id/cancel: what the request could reach (engine/admin/worker-heartbeats.ts). */
export interface JobCancelResponse {
  outcome: import('oxmq/admin').CancelRequestOutcome;
}

export interface MetricsListResponse {
  queues: import('oxmq/admin').QueueMetrics[];
  minutes: number;
  total: number;
  page: number;
  pageSize: number;
  complete: boolean;
}

export type QueueMetricsResponse = import('oxmq/admin').QueueMetrics & { minutes: number };

/** GET /api/metrics/total: completed and failed per minute summed over a page of queues. */
export type TotalThroughputResponse = import('oxmq/admin').TotalThroughput;

/** The data of every `event: events` message on GET /api/events. */
export interface LiveEventsMessage {
  batches: import('oxmq/admin').LiveEventBatch[];
}

// ---- job page and flows page ----

/** One job as the job page shows it: data, opts and return value already redacted. */
export interface JobDetailResponse extends Omit<
  import('oxmq/admin').JobDetail,
  'traceparent' | 'tracestate'
> {
  prefix: string;
  queueName: string;
  /** Sensitive key names redacted (normalised), so the page can say what it hides. */
  redactedKeys: string[];
  /** The trace viewer's page for `traceId` (OXMQ_TRACE_URL); null when either is missing. */
  traceUrl: string | null;
  children: import('oxmq/admin').JobChildrenPage;
}

export type JobLogsResponse = import('oxmq/admin').JobLogPage & {
  page: number;
  pageSize: number;
};

export type JobTimelineResponse = import('oxmq/admin').JobTimeline;
export type JobTimelineEntry = import('oxmq/admin').JobTimelineEntry;
export type JobLinkRef = import('oxmq/admin').JobLinkRef;

export interface JobActionResponse {
  ok: true;
  /** duplicate: the new job's id. */
  id?: string;
}

export interface FlowGraphResponse {
  /** The job the page was opened for. */
  jobKey: string;
  root: import('oxmq/admin').FlowRoot;
  graph: Omit<import('oxmq/admin').FlowGraph, 'nodes'> & { nodes: FlowGraphNode[] };
}

export type FlowChildrenResponse = Omit<import('oxmq/admin').FlowChildrenPage, 'nodes'> & {
  nodes: FlowGraphNode[];
};
/** A graph node with its trace viewer link, when it has a trace and OXMQ_TRACE_URL is set. */
export type FlowGraphNode = import('oxmq/admin').FlowGraphNode & { traceUrl?: string };
export type FlowGraphEdge = import('oxmq/admin').FlowGraphEdge;

export type { JobLocation } from 'oxmq/admin';

// ---- streamed search (GET /api/queues/:prefix/:name/search/stream, NDJSON) ----
/** Why a streamed search ended: null when it looked at the whole state. */
export type SearchStreamStop = 'matches' | 'time' | null;

/** One line of a streamed search; `progress` and `matches` repeat, `end` or `error` is last. */
export type SearchStreamLine =
  | { type: 'progress'; scanned: number; total: number; found: number; tooLarge: number }
  | { type: 'matches'; jobs: import('oxmq/admin').JobRow[] }
  | {
      type: 'end';
      scanned: number;
      total: number;
      found: number;
      tooLarge: number;
      stoppedBy: SearchStreamStop;
    }
  | { type: 'error'; code: string; message: string };

// ---- job schedulers and tenant groups on the queue page ----
export type { GroupPage, SchedulerIteration, SchedulerPage, SchedulerRow } from 'oxmq/admin';
export type GroupInfo = import('oxmq/admin').GroupPage['groups'][number];

/** POST …/schedulers/:id/<action>: the new job (run), or the next run (resume, edit). */
export interface SchedulerActionResponse {
  ok: true;
  jobId?: string;
  next?: number;
}
