/**
 * withRoute: the one wrapper every console API handler goes through. In order:
 * session (401), same-origin for mutations (403 CROSS_ORIGIN), role (403 FORBIDDEN), read-only
 * mode for mutations (403 READ_ONLY), route params / query / JSON body validated with zod (415,
 * 413, 400, 422), then the handler; any other throw is a 500 INTERNAL without details. Every
 * mutation request by a signed-in user is written to the audit log with its outcome, refused
 * ones included: a refused attempt is exactly what an audit should show.
 */
import 'server-only';
import type { NextRequest } from 'next/server';
import { z } from 'zod';
import type { AuditOutcome } from 'oxmq/admin';
import { roleOfAction, type ActionName } from '../permissions';
import { hasRole, type Role } from '../roles';
import { ApiProblem, errorResponse } from './api-error';
import { engineRefusal } from './engine-errors';
import { BodyTooLargeError, readBoundedText } from './bounded-body';
import { requestUser, type SessionUser } from './auth';
import { getEnv } from './env';
import { isReadOnly, recordAudit } from './oxmq';
import { redactValue } from 'oxmq/admin';
import { redactionRules } from './redact';
import { RouteRateLimiter, type RouteBudgetName } from './route-rate-limit';
import { isSameOrigin } from './same-origin';

// One per console process, kept across `next dev` reloads like the Redis connection.
const limiterHolder = globalThis as typeof globalThis & { __oxmqRouteLimiter?: RouteRateLimiter };
const routeLimiter = (limiterHolder.__oxmqRouteLimiter ??= new RouteRateLimiter());

export { ApiProblem } from './api-error';

/** What a handler made by withRoute requires: its role, and for a mutation its audit action. */
export interface RouteAccess {
  role: Role;
  action?: ActionName;
}

// Kept per handler so a test can hold lib/api-routes/ (the docs' API table) to what each route
// really enforces, through whichever helper (job-action-route.ts, ...) built it.
const declaredAccess = new WeakMap<object, RouteAccess>();

/** Largest JSON body a mutation accepts; console actions send small objects. */
const MAX_BODY_BYTES = 64 * 1024;
/** Largest serialised body the audit log keeps per entry. */
const MAX_AUDITED_BODY_CHARS = 4_096;

type AnySchema = z.ZodType;

interface RouteSpecBase<P extends AnySchema, Q extends AnySchema, B extends AnySchema> {
  params?: P;
  query?: Q;
  /** Mutations only; defaults to an empty strict object (`{}`). */
  body?: B;
  /** An expensive route: each user has a budget of requests of this kind (route-rate-limit.ts). */
  budget?: RouteBudgetName;
}

/**
 * A read: the weakest role allowed is named here. Above `viewer` it must be its entry's in
 * READ_PERMISSIONS (lib/permissions.ts), as lib/api-routes/ says; a test holds the two together.
 */
interface ReadRouteSpec<
  P extends AnySchema,
  Q extends AnySchema,
  B extends AnySchema,
> extends RouteSpecBase<P, Q, B> {
  role: Role;
  mutation?: undefined;
}

/**
 * A state-changing route: the audit action name and what it targets. Its role is the action's
 * in lib/permissions.ts, the one table the docs are generated from, so it cannot be set here.
 */
interface MutationRouteSpec<
  P extends AnySchema,
  Q extends AnySchema,
  B extends AnySchema,
> extends RouteSpecBase<P, Q, B> {
  role?: never;
  mutation: { action: ActionName; target: (params: Record<string, string>) => string };
}

export type RouteSpec<P extends AnySchema, Q extends AnySchema, B extends AnySchema> =
  ReadRouteSpec<P, Q, B> | MutationRouteSpec<P, Q, B>;

export interface RouteInput<P extends AnySchema, Q extends AnySchema, B extends AnySchema> {
  request: NextRequest;
  user: SessionUser;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

/** What Next passes as the second argument of a route handler. */
export interface NextRouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}

const emptyObject = z.object({});
const emptyBody = z.object({}).strict();

export function withRoute<
  P extends AnySchema = typeof emptyObject,
  Q extends AnySchema = typeof emptyObject,
  B extends AnySchema = typeof emptyBody,
>(
  spec: RouteSpec<P, Q, B>,
  handler: (input: RouteInput<P, Q, B>) => Promise<unknown>,
): (request: NextRequest, context: NextRouteContext) => Promise<Response> {
  const role: Role = spec.mutation ? roleOfAction(spec.mutation.action) : spec.role;
  const route = async (request: NextRequest, context: NextRouteContext): Promise<Response> => {
    let user: SessionUser | null = null;
    let rawParams: Record<string, string> = {};
    let auditedBody: unknown = undefined;
    const audit = async (outcome: AuditOutcome, status: number, code?: string) => {
      if (!spec.mutation || !user) return;
      try {
        await recordAudit({
          actor: user.username,
          role: user.role,
          action: spec.mutation.action,
          target: spec.mutation.target(rawParams),
          params: { ...rawParams, ...(auditedBody === undefined ? {} : { body: auditedBody }) },
          outcome,
          status,
          code,
        });
      } catch (error) {
        // The answer must not depend on the audit store; the failure is logged for operators.
        console.error('OxMQ console: could not write the audit log:', error);
      }
    };

    try {
      rawParams = flattenParams(await context.params);
      user = await requestUser(request);
      if (!user) throw new ApiProblem(401, 'UNAUTHENTICATED', 'Sign in first');
      if (spec.mutation && !isSameOrigin(request, new URL(getEnv().NEXTAUTH_URL).origin)) {
        throw new ApiProblem(403, 'CROSS_ORIGIN', 'Mutations must come from the console itself');
      }
      if (!hasRole(user.role, role)) {
        throw new ApiProblem(403, 'FORBIDDEN', `This needs the ${role} role`);
      }
      if (spec.mutation && isReadOnly()) {
        throw new ApiProblem(403, 'READ_ONLY', 'The console is in read-only mode');
      }
      if (spec.budget) routeLimiter.take(user.username, spec.budget);
      const params = validate(spec.params ?? emptyObject, rawParams, 'params');
      const query = validate(
        spec.query ?? emptyObject,
        Object.fromEntries(request.nextUrl.searchParams),
        'query',
      );
      let body: unknown = undefined;
      if (spec.mutation) {
        const json = await readJsonBody(request);
        // Redacted like every view of job data: the audit log is read by every operator.
        auditedBody = forAudit(redactValue(json, redactionRules()));
        body = validate(spec.body ?? emptyBody, json, 'body');
      }
      const result = await handler({
        request,
        user,
        params: params as z.output<P>,
        query: query as z.output<Q>,
        body: body as z.output<B>,
      });
      const response =
        result instanceof Response
          ? result
          : Response.json(result, { headers: { 'Cache-Control': 'no-store' } });
      await audit(response.ok ? 'ok' : 'error', response.status);
      return response;
    } catch (error) {
      // An engine refusal (a job in the wrong state, a bad value) has its answer in one table.
      const known = error instanceof ApiProblem ? error : engineRefusal(error);
      const problem =
        known ?? new ApiProblem(500, 'INTERNAL', 'Internal error; the server log has details');
      if (!known) console.error('OxMQ console: route failed:', error);
      await audit(outcomeOf(problem.status), problem.status, problem.code);
      return errorResponse(problem);
    }
  };
  declaredAccess.set(route, spec.mutation ? { role, action: spec.mutation.action } : { role });
  return route;
}

/** The access withRoute enforces for this handler; undefined for a handler it did not make. */
export function routeAccessOf(handler: unknown): RouteAccess | undefined {
  return typeof handler === 'function' ? declaredAccess.get(handler) : undefined;
}

function outcomeOf(status: number): AuditOutcome {
  if (status === 401 || status === 403) return 'denied';
  if (status >= 500) return 'error';
  return 'invalid';
}

function flattenParams(
  params: Record<string, string | string[] | undefined> | undefined,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {})) {
    if (typeof value === 'string') flat[key] = value;
    else if (Array.isArray(value)) flat[key] = value.join('/');
  }
  return flat;
}

function validate<S extends AnySchema>(schema: S, input: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: [where, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
    message: issue.message,
  }));
  const first = issues[0];
  throw new ApiProblem(
    422,
    'INVALID_INPUT',
    first ? `${first.path.join('.')}: ${first.message}` : `invalid ${where}`,
    issues,
  );
}

async function readJsonBody(request: NextRequest): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) {
    throw new ApiProblem(413, 'PAYLOAD_TOO_LARGE', `Bodies are limited to ${MAX_BODY_BYTES} bytes`);
  }
  let text: string;
  try {
    text = await readBoundedText(request, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    throw new ApiProblem(413, 'PAYLOAD_TOO_LARGE', error.message);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiProblem(400, 'INVALID_JSON', 'The body is not valid JSON');
  }
}

function forAudit(body: unknown): unknown {
  const text = JSON.stringify(body);
  return text.length <= MAX_AUDITED_BODY_CHARS ? body : { truncated: true, chars: text.length };
}

/** page / pageSize query parameters; a pageSize over the cap is clamped, not refused. */
export function pageQuery(maxPageSize = 100, defaultPageSize = 50) {
  return z.object({
    page: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce
      .number()
      .int()
      .min(1)
      .default(defaultPageSize)
      .transform((size) => Math.min(size, maxPageSize)),
  });
}
