/** Errors a route handler throws to answer with a specific status and code. */
import type { ApiError, ApiErrorCode } from '../api-types';

export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly issues?: ApiError['issues'],
  ) {
    super(message);
  }
}

export function errorResponse(problem: ApiProblem): Response {
  const body: ApiError = { code: problem.code, message: problem.message };
  if (problem.issues) body.issues = problem.issues;
  return Response.json(body, { status: problem.status, headers: { 'Cache-Control': 'no-store' } });
}
