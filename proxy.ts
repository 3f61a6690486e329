/**
 * The console's front door (Next 16 names middleware `proxy.ts`), in two jobs:
 *
 * 1. Route protection: every page and API route needs a session except /login, /api/auth/* and
 *    /api/health (see `config.matcher`; API requests with a body are left to the route's own
 *    check). A session counts only while its user is still configured with the same credential
 *    (lib/server/users.ts) and the session has not been signed out or outlived its absolute lifetime
 *    (lib/server/auth.ts). Pages without one redirect to /login; API routes answer 401 JSON,
 *    since a redirect means nothing to fetch(). Route handlers check the session again in
 *    withRoute: this is the outer wall.
 * 2. Page headers: a fresh nonce per page and the Content-Security-Policy that names it, set on
 *    the request (Next reads it there to mark its own scripts) and on the response, plus HSTS
 *    when the console is served over https (lib/server/security-headers.ts).
 *
 * One exception inside the matcher: exactly `/api/prometheus`, which Prometheus scrapes without
 * a cookie; its route checks a bearer token instead (app/api/prometheus/route.ts). The
 * comparison is on the exact path, not a prefix, so no other path (`/api/prometheus/x`,
 * `/api/prometheus-x`) gets past the wall this way.
 */
import {
  withAuth,
  type NextMiddlewareWithAuth,
  type NextRequestWithAuth,
} from 'next-auth/middleware';
import { NextResponse, type NextFetchEvent, type NextRequest } from 'next/server';
import type { ApiError } from '@/lib/api-types';
import { userOfToken } from '@/lib/server/auth';
import { getEnv } from '@/lib/server/env';
import {
  newNonce,
  pageContentSecurityPolicy,
  STRICT_TRANSPORT_SECURITY,
} from '@/lib/server/security-headers';

const PROMETHEUS_PATH = '/api/prometheus';
const LOGIN_PATH = '/login';

/** The policy of each page request in flight, for the auth callback that forwards it. */
const pagePolicies = new WeakMap<NextRequest, string>();

let authProxy: NextMiddlewareWithAuth | undefined;

// Built on the first request: the secret comes from the validated environment, read at runtime.
function buildAuthProxy(): NextMiddlewareWithAuth {
  return withAuth(
    async (request) => {
      if (request.nextUrl.pathname.startsWith('/api/')) {
        if (await userOfToken(request.nextauth.token)) return NextResponse.next();
        const body: ApiError = { code: 'UNAUTHENTICATED', message: 'Sign in first' };
        return NextResponse.json(body, { status: 401 });
      }
      return forwardPage(request);
    },
    {
      secret: getEnv().NEXTAUTH_SECRET,
      pages: { signIn: LOGIN_PATH },
      callbacks: {
        // API routes always reach the function above, which answers 401 itself. A token is not
        // enough for a page: its user must still be configured with the same credential, and
        // the session neither signed out nor past its lifetime.
        authorized: async ({ req, token }) =>
          req.nextUrl.pathname.startsWith('/api/') || (await userOfToken(token)) !== null,
      },
    },
  );
}

/** Lets a page request through with its Content-Security-Policy on the request. */
function forwardPage(request: NextRequest): NextResponse {
  const policy = pagePolicies.get(request);
  if (policy === undefined) return NextResponse.next();
  const headers = new Headers(request.headers);
  headers.set('Content-Security-Policy', policy);
  return NextResponse.next({ request: { headers } });
}

export default async function proxy(
  request: NextRequestWithAuth,
  event: NextFetchEvent,
): Promise<Response> {
  const path = request.nextUrl.pathname;
  if (path === PROMETHEUS_PATH) return NextResponse.next();
  if (path.startsWith('/api/')) {
    authProxy ??= buildAuthProxy();
    return (await authProxy(request, event)) ?? NextResponse.next();
  }

  const policy = pageContentSecurityPolicy(newNonce(), process.env.NODE_ENV !== 'production');
  pagePolicies.set(request, policy);
  let response: Response;
  if (path === LOGIN_PATH) {
    response = forwardPage(request);
  } else {
    authProxy ??= buildAuthProxy();
    response = (await authProxy(request, event)) ?? forwardPage(request);
  }
  response.headers.set('Content-Security-Policy', policy);
  if (new URL(getEnv().NEXTAUTH_URL).protocol === 'https:') {
    response.headers.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  }
  return response;
}

export const config = {
  matcher: [
    '/((?!api/|_next/static|_next/image|favicon.ico).*)',
    // API requests that carry a body skip the wall: Next reads the whole body of a request the
    // proxy runs for before the route sees it, so a chunked body could not be cut at the
    // route's limit (lib/server/bounded-body.ts). withRoute checks the session of every such
    // route before it reads a byte.
    {
      source: '/api/((?!auth|health).*)',
      missing: [
        { type: 'header', key: 'content-length' },
        { type: 'header', key: 'transfer-encoding' },
      ],
    },
  ],
};
