/**
 * Route protection (Next 16 names middleware `proxy.ts`): every page and API route needs a
 * session except /login, /api/auth/* and /api/health (see `config.matcher`; API requests with a
 * body are left to the route's own check). Pages without a
 * session redirect to /login; API routes answer 401 JSON, since a redirect means nothing to
 * fetch(). Route handlers check the session again in withRoute: this is the outer wall.
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
import { NextResponse, type NextFetchEvent } from 'next/server';
import type { ApiError } from '@/lib/api-types';
import { getEnv } from '@/lib/server/env';

let authProxy: NextMiddlewareWithAuth | undefined;

// Built on the first request: the secret comes from the validated environment, read at runtime.
function buildAuthProxy(): NextMiddlewareWithAuth {
  return withAuth(
    (request) => {
      if (!request.nextauth.token && request.nextUrl.pathname.startsWith('/api/')) {
        const body: ApiError = { code: 'UNAUTHENTICATED', message: 'Sign in first' };
        return NextResponse.json(body, { status: 401 });
      }
      return NextResponse.next();
    },
    {
      secret: getEnv().NEXTAUTH_SECRET,
      pages: { signIn: '/login' },
      callbacks: {
        // API routes always reach the function above, which answers 401 itself.
        authorized: ({ req, token }) => token !== null || req.nextUrl.pathname.startsWith('/api/'),
      },
    },
  );
}

/** The one path answered without a session; its route checks a bearer token. */
const PROMETHEUS_PATH = '/api/prometheus';

export default function proxy(request: NextRequestWithAuth, event: NextFetchEvent) {
  if (request.nextUrl.pathname === PROMETHEUS_PATH) return NextResponse.next();
  authProxy ??= buildAuthProxy();
  return authProxy(request, event);
}

export const config = {
  matcher: [
    '/((?!api/|login|_next/static|_next/image|favicon.ico).*)',
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
