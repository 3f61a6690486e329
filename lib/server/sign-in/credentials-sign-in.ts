/**
 * The sign-in request (POST /api/auth/callback/credentials) passes through here before
 * next-auth sees it: the body is read within a small bound, the attempt is checked against the
 * SignInGuard before any password is hashed, and next-auth's answer (200 signed in, 401 wrong
 * credentials) is recorded as the attempt's outcome.
 *
 * A refusal is a 429 with Retry-After whose JSON also carries the `url` next-auth's client
 * reads, so `signIn()` in the login form reports `TooManyAttempts` / `SignInBusy` as its error.
 */
import 'server-only';
import { NextRequest } from 'next/server';
import type { ApiError } from '../../api-types';
import { BodyTooLargeError, readBoundedText } from '../bounded-body';
import { getEnv } from '../env';
import { clientAddress } from './client-address';
import { SignInBusyError } from './sign-in-gate';
import { SignInGuard, type SignInAttempt } from './sign-in-guard';

/** A sign-in form is a few short fields and a CSRF token. */
const MAX_SIGN_IN_BODY_BYTES = 8 * 1024;

// One per console process, kept across `next dev` reloads like the Redis connection.
const holder = globalThis as typeof globalThis & { __oxmqSignInGuard?: SignInGuard };
const guard = (holder.__oxmqSignInGuard ??= new SignInGuard());

export type SignInErrorName = 'TooManyAttempts' | 'SignInBusy';

export async function guardedCredentialsSignIn(
  request: NextRequest,
  signIn: (request: NextRequest) => Promise<Response>,
): Promise<Response> {
  let body: string;
  try {
    body = await readBoundedText(request, MAX_SIGN_IN_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    const problem: ApiError = { code: 'PAYLOAD_TOO_LARGE', message: error.message };
    return Response.json(problem, { status: 413 });
  }
  const env = getEnv();
  const attempt: SignInAttempt = {
    username: new URLSearchParams(body).get('username') ?? '',
    address: clientAddress(request.headers.get('x-forwarded-for'), env.OXMQ_TRUSTED_PROXY_HOPS),
  };
  const waitSeconds = guard.retryAfterSeconds(attempt);
  if (waitSeconds > 0) {
    return refusal(
      'TooManyAttempts',
      'TOO_MANY_ATTEMPTS',
      'Too many failed sign-ins; wait before trying again',
      waitSeconds,
    );
  }

  let response: Response;
  try {
    response = await guard.gate.run(() =>
      signIn(new NextRequest(request.url, { method: 'POST', headers: request.headers, body })),
    );
  } catch (error) {
    if (!(error instanceof SignInBusyError)) throw error;
    return refusal('SignInBusy', 'SIGN_IN_BUSY', 'Too many sign-ins at once; try again', 1);
  }
  if (response.status === 200) guard.recordSuccess(attempt);
  else if (response.status === 401) guard.recordFailure(attempt);
  return response;
}

function refusal(
  error: SignInErrorName,
  code: ApiError['code'],
  message: string,
  retryAfterSeconds: number,
): Response {
  const url = new URL('/login', getEnv().NEXTAUTH_URL);
  url.searchParams.set('error', error);
  return Response.json(
    { code, message, url: url.toString() },
    {
      status: 429,
      headers: { 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' },
    },
  );
}
