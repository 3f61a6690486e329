/**
 * next-auth (v4) configuration: a credentials provider over the configured users, JWT sessions
 * carrying the user's name and credential stamp, and the session readers the server uses. Every
 * reader checks the session against the users configured now (users.ts), so removing a user,
 * changing their password or changing their role takes effect on their next request.
 */
import 'server-only';
import type { NextAuthOptions } from 'next-auth';
import { getServerSession } from 'next-auth';
import { getToken, type JWT } from 'next-auth/jwt';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { NextRequest } from 'next/server';
import { safeCallbackPath } from '../safe-callback';
import type { Role } from '../roles';
import { getEnv } from './env';
import { sessionUser, verifyCredentials } from './users';

export interface SessionUser {
  username: string;
  role: Role;
}

/** A working day; the JWT is re-issued on use, so an active tab stays signed in. */
const SESSION_MAX_AGE_S = 8 * 60 * 60;

let options: NextAuthOptions | undefined;

export function authOptions(): NextAuthOptions {
  options ??= {
    secret: getEnv().NEXTAUTH_SECRET,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: '/login' },
    providers: [
      CredentialsProvider({
        name: 'OxMQ',
        credentials: {
          username: { label: 'Username', type: 'text' },
          password: { label: 'Password', type: 'password' },
        },
        async authorize(credentials) {
          const username = credentials?.username ?? '';
          const password = credentials?.password ?? '';
          if (username === '' || password === '') return null;
          const user = await verifyCredentials(username, password);
          return user ? { id: user.username, name: user.username, stamp: user.stamp } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        // `user` is only present at sign-in. The role is not kept: it is looked up per request.
        if (user?.stamp !== undefined) token.stamp = user.stamp;
        return token;
      },
      session({ session, token }) {
        const user = userOfToken(token);
        session.user = user ? { name: user.username, role: user.role } : undefined;
        return session;
      },
      // next-auth follows callbackUrl after sign-in and sign-out: only into this console.
      redirect({ url, baseUrl }) {
        return new URL(safeCallbackPath(url, baseUrl), baseUrl).toString();
      },
    },
  };
  return options;
}

/** The user a session token stands for now, or null (unknown user, changed credential). */
export function userOfToken(token: JWT | null): SessionUser | null {
  if (!token) return null;
  const user = sessionUser(token.name, token.stamp);
  return user ? { username: user.username, role: user.role } : null;
}

/** The signed-in user of an API request, from the session JWT cookie (no extra round trip). */
export async function requestUser(request: NextRequest): Promise<SessionUser | null> {
  return userOfToken(await getToken({ req: request, secret: getEnv().NEXTAUTH_SECRET }));
}

/** The signed-in user in a server component. */
export async function currentUser(): Promise<SessionUser | null> {
  const session = await getServerSession(authOptions());
  const name = session?.user?.name;
  const role = session?.user?.role;
  return typeof name === 'string' && role ? { username: name, role } : null;
}
