/**
 * next-auth (v4) configuration: a credentials provider over the configured users, JWT sessions
 * carrying the user's name, credential stamp, a random session id and the sign-in time, and the
 * session readers the server uses. Every reader checks the session against the users configured
 * now (users.ts), so removing a user, changing their password or changing their role takes
 * effect on their next request; and against the revocation records (session-revocation.ts), so
 * a signed-out session, or every session of a user signed out everywhere, stops working at once.
 */
import 'server-only';
import { randomBytes } from 'node:crypto';
import type { NextAuthOptions } from 'next-auth';
import { getServerSession } from 'next-auth';
import { getToken, type JWT } from 'next-auth/jwt';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { NextRequest } from 'next/server';
import { cache } from 'react';
import { safeCallbackPath } from '../safe-callback';
import type { Role } from '../roles';
import { getEnv } from './env';
import { sessionRevocations } from './oxmq';
import type { SessionRef } from './session-revocation';
import { checkCredentials } from './sign-in/check-credentials';
import { sessionUser } from './users';

export interface SessionUser {
  username: string;
  role: Role;
}

const HOUR_S = 60 * 60;
/** Idle timeout: the JWT is re-issued on use, so an active tab stays signed in this long. */
const SESSION_IDLE_S = 8 * HOUR_S;

let options: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  const absoluteS = getEnv().OXMQ_SESSION_ABSOLUTE_HOURS * HOUR_S;
  options ??= {
    secret: getEnv().NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: Math.min(SESSION_IDLE_S, absoluteS) },
    pages: { signIn: '/login' },
    providers: [
      CredentialsProvider({
        name: 'OxMQ',
        credentials: {
          username: { label: 'Username', type: 'text' },
          password: { label: 'Password', type: 'password' },
        },
        // Throttled inside, on exactly these values (lib/server/sign-in/check-credentials.ts).
        async authorize(credentials) {
          const username = credentials?.username ?? '';
          const password = credentials?.password ?? '';
          if (username === '' || password === '') return null;
          const user = await checkCredentials(username, password);
          return user ? { id: user.username, name: user.username, stamp: user.stamp } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        // `user` is only present at sign-in. The role is not kept: it is looked up per request.
        if (user?.stamp !== undefined) {
          token.stamp = user.stamp;
          token.sid = randomBytes(18).toString('base64url');
          token.signedInAt = Date.now();
        }
        return token;
      },
      async session({ session, token }) {
        const user = await userOfToken(token);
        session.user = user ? { name: user.username, role: user.role } : undefined;
        return session;
      },
      // next-auth follows callbackUrl after sign-in and sign-out: only into this console.
      redirect({ url, baseUrl }) {
        return new URL(safeCallbackPath(url, baseUrl), baseUrl).toString();
      },
    },
    events: {
      // Called only for a sign-out next-auth accepted (CSRF token checked).
      async signOut({ token }) {
        const session = sessionOfToken(token);
        if (session) await sessionRevocations().revoke(session);
      },
    },
  };
  return options;
}

/** The session a token carries, when it is one this console issued with an id and a time. */
function sessionOfToken(token: JWT | null): SessionRef | null {
  if (!token) return null;
  const { name, sid, signedInAt } = token;
  if (typeof name !== 'string' || typeof sid !== 'string' || typeof signedInAt !== 'number') {
    return null;
  }
  return { username: name, sid, signedInAt };
}

/**
 * The user a session token stands for now, or null: an unknown user or a changed credential,
 * a session past its absolute lifetime, or one signed out (by itself or everywhere).
 */
export async function userOfToken(token: JWT | null): Promise<SessionUser | null> {
  const session = sessionOfToken(token);
  if (!session) return null;
  const user = sessionUser(session.username, token?.stamp);
  if (!user) return null;
  if (await sessionRevocations().hasEnded(session)) return null;
  return { username: user.username, role: user.role };
}

/** The signed-in user of an API request, from the session JWT cookie. */
export async function requestUser(request: NextRequest): Promise<SessionUser | null> {
  return userOfToken(await getToken({ req: request, secret: getEnv().NEXTAUTH_SECRET }));
}

/**
 * The signed-in user in a server component: read once per request (React's cache), since the
 * layout and the page both ask and each read checks the session in Redis.
 */
export const currentUser = cache(async (): Promise<SessionUser | null> => {
  const session = await getServerSession(authOptions());
  const name = session?.user?.name;
  const role = session?.user?.role;
  return typeof name === 'string' && role ? { username: name, role } : null;
});
