/** Errors a route handler throws to answer with a specific status and code. */
import type { ApiError, ApiErrorCode } from '../api-types';

export interface ApiProblemOptions {
  issues?: ApiError['issues'];
  /** Sent as Retry-After (a 429 or 503 says when to come back). */
  retryAfterSeconds?: number;
}

export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  readonly issues?: ApiError['issues'];
  readonly retryAfterSeconds?: number;

  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    options?: ApiError['issues'] | ApiProblemOptions,
  ) {
    super(message);
    const opts = Array.isArray(options) ? { issues: options } : (options ?? {});
    this.issues = opts.issues;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export function errorResponse(problem: ApiProblem): Response {
  const body: ApiError = { code: problem.code, message: problem.message };
  if (problem.issues) body.issues = problem.issues;
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (problem.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(problem.retryAfterSeconds);
  }
  return Response.json(body, { status: problem.status, headers });
}
