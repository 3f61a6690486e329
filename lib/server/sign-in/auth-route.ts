/**
 * Everything under /api/auth passes through here before next-auth sees it:
 *
 * - only the endpoints the console uses are served (auth-paths.ts); any other path is 404;
 * - every POST is a form of known fields, each once, read within a small bound, and next-auth
 *   gets a form rebuilt from exactly those fields;
 * - a sign-in runs inside a context (sign-in-context.ts) that lets `authorize` throttle it on
 *   the username it checks, and tells this route afterwards what happened: a refusal becomes a
 *   429 with Retry-After, a success also trusts the browser for that user (device-cookie.ts).
 *
 * A 429's JSON carries the `url` next-auth's client reads, so `signIn()` in the login form
 * reports `TooManyAttempts` / `SignInBusy` as its error.
 */
import 'server-only';
import { NextRequest } from 'next/server';
import type { ApiError } from '../../api-types';
import { BodyTooLargeError, readBoundedText } from '../bounded-body';
import { getEnv } from '../env';
import {
  allowedPostPath,
  AuthFormError,
  CREDENTIALS_CALLBACK,
  isAllowedGetPath,
  isFormContentType,
  parseAuthForm,
} from './auth-paths';
import { clientAddress } from './client-address';
import { deviceCookieName, deviceSetCookie, verifyDeviceCookie } from './device-cookie';
import { runInSignInContext, type SignInContext, type SignInRefusal } from './sign-in-context';

/** An auth form is a few short fields and a CSRF token. */
const MAX_AUTH_BODY_BYTES = 8 * 1024;

type NextAuthCall = (request: NextRequest) => Promise<Response>;

function problem(status: number, code: ApiError['code'], message: string): Response {
  const body: ApiError = { code, message };
  return Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });
}

function notFound(): Response {
  return problem(404, 'NOT_FOUND', 'No such auth endpoint');
}

export async function authGet(
  request: NextRequest,
  segments: readonly string[],
  nextAuth: NextAuthCall,
): Promise<Response> {
  return isAllowedGetPath(segments) ? nextAuth(request) : notFound();
}

export async function authPost(
  request: NextRequest,
  segments: readonly string[],
  nextAuth: NextAuthCall,
): Promise<Response> {
  const path = allowedPostPath(segments);
  if (path === null) return notFound();
  if (!isFormContentType(request.headers.get('content-type'))) {
    return problem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/x-www-form-urlencoded');
  }
  let fields: Map<string, string>;
  try {
    fields = parseAuthForm(path, await readBoundedText(request, MAX_AUTH_BODY_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return problem(413, 'PAYLOAD_TOO_LARGE', error.message);
    }
    if (error instanceof AuthFormError) return problem(400, 'INVALID_INPUT', error.message);
    throw error;
  }

  const headers = new Headers(request.headers);
  headers.set('content-type', 'application/x-www-form-urlencoded');
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  const canonical = new NextRequest(request.url, {
    method: 'POST',
    headers,
    body: new URLSearchParams([...fields]).toString(),
  });
  if (path !== CREDENTIALS_CALLBACK) return nextAuth(canonical);

  const env = getEnv();
  const secure = new URL(env.NEXTAUTH_URL).protocol === 'https:';
  const device = verifyDeviceCookie(
    env.NEXTAUTH_SECRET,
    request.cookies.get(deviceCookieName(secure))?.value,
  );
  const context: SignInContext = {
    address: clientAddress(request.headers.get('x-forwarded-for'), env.OXMQ_TRUSTED_PROXY_HOPS),
    deviceUser: device?.userKey ?? null,
    deviceId: device?.id ?? null,
  };
  const response = await runInSignInContext(context, () => nextAuth(canonical));
  if (context.refusal) return refusal(context.refusal);
  if (context.signedIn !== undefined && response.ok) {
    response.headers.append(
      'Set-Cookie',
      deviceSetCookie(env.NEXTAUTH_SECRET, context.signedIn, secure),
    );
  }
  return response;
}

const REFUSALS = {
  TooManyAttempts: {
    code: 'TOO_MANY_ATTEMPTS',
    message: 'Too many failed sign-ins; wait before trying again',
  },
  SignInBusy: { code: 'SIGN_IN_BUSY', message: 'Too many sign-ins at once; try again' },
} as const;

function refusal({ kind, retryAfterSeconds }: SignInRefusal): Response {
  const url = new URL('/login', getEnv().NEXTAUTH_URL);
  url.searchParams.set('error', kind);
  const { code, message } = REFUSALS[kind];
  return Response.json(
    { code, message, url: url.toString() },
    {
      status: 429,
      headers: { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
    },
  );
}
