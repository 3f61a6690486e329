/**
 * The console's JSON API contract, as types: every response body, imported by the route handlers
 * (app/api/) and the react-query hooks (components/). Each shape is a zod schema of the console's
 * own in lib/http/ (one concept per file), so the HTTP contract is declared here and not
 * borrowed from the engine: a route whose engine read drifts from it fails to type-check, and
 * test/console/response-contract.test.ts parses real answers with the schemas. Only types are
 * exported here, so client code bundles neither zod schemas nor engine code.
 */
import type { Role } from './roles';
import type { ConsoleLinks } from './http/session';

export type { AuditKind, AuditListResponse } from './http/audit';
export type {
  QueueActionResponse,
  QueueListResponse,
  QueueMetricsSeries,
  QueueOverview,
  QueueOverviewResponse,
  QueueProblem,
  QueueProblemSeverity,
} from './http/queue-overview';
export type { QueueCountState } from './http/job-states';
export type { ConsoleLinks, HealthResponse, SignOutEverywhereResponse } from './http/session';

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
  | 'SEARCH_BUSY'
  | 'TOO_MANY_ATTEMPTS'
  | 'SIGN_IN_BUSY'
  | 'INTERNAL';

export interface SessionInfo {
  username: string;
  role: Role;
  readOnly: boolean;
  links: ConsoleLinks;
}

// ---- queue page ----
export type {
  JobFindResponse,
  JobListResponse,
  JobLocation,
  JobRow,
  JobSearchResponse,
} from './http/job-row';
export type { BulkAction, BulkOperationResponse, SelectionResult } from './http/bulk';
export type {
  QueueCleanResponse,
  QueueDiagnosis,
  QueueLimits,
  QueueOkResponse,
  RateLimitInForce,
  WorkerLimits,
} from './http/queue-ops';
export type { ErrorGroup, ErrorGroupsResponse, ErrorGroupTally } from './http/error-groups';
export type {
  IntegrityCheckResponse,
  IntegrityRepair,
  IntegrityRepairResponse,
  IntegrityReportBody,
} from './http/integrity';

// ---- workers, metrics and live events ----
export type {
  JobCancelResponse,
  JobCancelStateResponse,
  QueueHeartbeatsResponse,
  QueueWorkerRoster,
  WorkerCommandResponse,
  WorkerRosterRow,
  WorkersResponse,
} from './http/workers';
export type {
  MetricsListResponse,
  MetricsTimeline,
  QueueMetrics,
  QueueMetricsResponse,
  TotalThroughputResponse,
} from './http/metrics';
export type {
  HistoryAcrossResponse,
  HistoryNameSummary,
  HistoryPoint,
  HistoryRangeName,
  HistorySparklinesResponse,
  QueueHistory,
  QueueHistoryResponse,
  QueueSparkline,
  TimingSummary,
} from './http/history';
export type { LiveEventBatch, LiveEventsMessage } from './http/live-events';

// ---- job page and flows page ----
export type {
  JobActionResponse,
  JobDetailResponse,
  JobLinkRef,
  JobLogsResponse,
  JobTimelineEntry,
  JobTimelineResponse,
} from './http/job-detail';
export type {
  FlowChildrenResponse,
  FlowGraphEdge,
  FlowGraphNode,
  FlowGraphResponse,
} from './http/flow';

// ---- streamed search (GET /api/queues/:prefix/:name/search/stream, NDJSON) ----
export type { SearchStreamLine, SearchStreamStop } from './http/search-stream';

// ---- job schedulers and tenant groups on the queue page ----
export type {
  SchedulerActionResponse,
  SchedulerIteration,
  SchedulerPage,
  SchedulerRow,
} from './http/schedulers';
export type { GroupInfo, GroupJobs, GroupPage } from './http/groups';

// ---- notifications of queue problems to webhooks ----
export type {
  NotificationsStatus,
  QueueNotifications,
  TestNotificationResponse,
} from './http/notifications';
