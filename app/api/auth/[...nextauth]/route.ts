import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { authOptions } from '@/lib/server/auth';
import { guardedCredentialsSignIn } from '@/lib/server/sign-in/credentials-sign-in';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ nextauth: string[] }> };

// Options are built on the first request, not at import: `next build` has no secret to read.
function handler(request: NextRequest, context: Context) {
  return NextAuth(request, context, authOptions());
}

/** Sign-ins are throttled before next-auth hashes a password (lib/server/sign-in/). */
async function post(request: NextRequest, context: Context): Promise<Response> {
  const { nextauth } = await context.params;
  if (nextauth.join('/') !== 'callback/credentials') return handler(request, context);
  return guardedCredentialsSignIn(request, (body) => handler(body, context));
}

export { handler as GET, post as POST };
