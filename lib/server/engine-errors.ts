/**
 * The one table that turns the engine's typed refusals (each error's `code`, engine/errors.ts
 * and engine/admin) into API answers. withRoute (api.ts) applies it to whatever a route throws,
 * so no route can forget it. Codes left out of the table are faults, not refusals: they answer
 * 500 INTERNAL and go to the server log. test/lib/engine-errors.test.ts checks that every code
 * the engine defines is decided here, one way or the other.
 */
import type { ApiErrorCode } from '@/lib/api-types';
import { ApiProblem } from './api-error';

type Answer = readonly [status: number, code: ApiErrorCode];

const INVALID: Answer = [422, 'INVALID_INPUT'];
const CONFLICT: Answer = [409, 'CONFLICT'];
const MISSING: Answer = [404, 'NOT_FOUND'];

/** Refusals, by engine code. */
export const ENGINE_REFUSALS: Readonly<Record<string, Answer>> = {
  VALIDATION: INVALID,
  INVALID_BULK_STATE: INVALID,
  INVALID_CURSOR: INVALID,
  // Routes look a job up first (404); one that vanishes under the action is a conflict.
  JOB_NOT_FOUND: CONFLICT,
  JOB_NOT_IN_STATE: CONFLICT,
  JOB_NOT_MOVED: CONFLICT,
  LOCK_NOT_FOUND: CONFLICT,
  LOCK_MISMATCH: CONFLICT,
  PENDING_DEPENDENCIES: CONFLICT,
  PARENT_NOT_FOUND: CONFLICT,
  PARENT_CANNOT_BE_REPLACED: CONFLICT,
  JOB_BELONGS_TO_SCHEDULER: CONFLICT,
  FAILED_CHILDREN: CONFLICT,
  QUEUE_STATE: CONFLICT,
  SCHEDULER_PAUSED_STATE: CONFLICT,
  SCHEDULER_JOB_ID_COLLISION: CONFLICT,
  SCHEDULER_JOB_SLOTS_BUSY: CONFLICT,
  SCHEDULER_NOT_FOUND: MISSING,
  GROUP_NOT_FOUND: MISSING,
};

/**
 * Engine codes that are no refusal of a console request: processor signals and worker-side
 * outcomes (never thrown by an admin call), and faults (a closed connection, a timeout, a reply
 * the engine did not expect) that deserve a 500 and a log line.
 */
export const ENGINE_FAULTS: readonly string[] = [
  'UNRECOVERABLE',
  'MOVED_TO_DELAYED',
  'MOVED_TO_WAIT',
  'MOVED_TO_WAITING_CHILDREN',
  'RATE_LIMITED',
  'JOB_FAILED',
  'JOB_CANCELLED',
  'SANDBOX_ABORTED',
  'SANDBOX_CRASHED',
  'SANDBOX_LOAD_FAILED',
  'CLOSED',
  'CONNECTION_CLOSED',
  'TIMEOUT',
  'WORKER_SERVICE_START',
  'UNEXPECTED_REPLY',
  // Redis at maxmemory: the operator's to fix, so a 500 and a log line that names it.
  'REDIS_OOM',
];

/** The API answer for an engine refusal, or null for anything else. */
export function engineRefusal(error: unknown): ApiProblem | null {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') {
    return null;
  }
  const answer = Object.hasOwn(ENGINE_REFUSALS, error.code) ? ENGINE_REFUSALS[error.code] : null;
  return answer ? new ApiProblem(answer[0], answer[1], error.message) : null;
}
