/**
 * next-auth (v4) configuration: a credentials provider over the configured users, JWT sessions
 * carrying the user's role, and the session readers the server uses.
 */
import 'server-only';
import type { NextAuthOptions } from 'next-auth';
import { getServerSession } from 'next-auth';
import { getToken } from 'next-auth/jwt';
import CredentialsProvider from 'next-auth/providers/credentials';
import type { NextRequest } from 'next/server';
import { isRole, type Role } from '../roles';
import { getEnv } from './env';
import { verifyCredentials } from './users';

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
          return user ? { id: user.username, name: user.username, role: user.role } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        // `user` is only present at sign-in: copy the role into the token then.
        if (user && isRole(user.role)) token.role = user.role;
        return token;
      },
      session({ session, token }) {
        session.user = { name: token.name ?? '', role: isRole(token.role) ? token.role : 'viewer' };
        return session;
      },
    },
  };
  return options;
}

function toSessionUser(name: unknown, role: unknown): SessionUser | null {
  if (typeof name !== 'string' || name === '' || !isRole(role)) return null;
  return { username: name, role };
}

/** The signed-in user of an API request, from the session JWT cookie (no extra round trip). */
export async function requestUser(request: NextRequest): Promise<SessionUser | null> {
  const token = await getToken({ req: request, secret: getEnv().NEXTAUTH_SECRET });
  return token ? toSessionUser(token.name, token.role) : null;
}

/** The signed-in user in a server component. */
export async function currentUser(): Promise<SessionUser | null> {
  const session = await getServerSession(authOptions());
  return session?.user ? toSessionUser(session.user.name, session.user.role) : null;
}
