/**
 * The console's JSON API contract: every response body, declared once and imported by the route
 * handlers (app/api/) and the react-query hooks (components/). Type-only imports from the engine
 * are erased at build time, so client code never bundles engine code.
 */
import type { AuditEntry, QueueOverview } from '@/engine/admin';
import type { Role } from './roles';

export type {
  AuditEntry,
  AuditOutcome,
  QueueCountState,
  QueueMetricsSeries,
  QueueOverview,
} from '@/engine/admin';

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
}
