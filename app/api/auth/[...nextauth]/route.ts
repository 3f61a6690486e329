import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { authOptions } from '@/lib/server/auth';
import { authGet, authPost } from '@/lib/server/sign-in/auth-route';

export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ nextauth: string[] }> };

/** Only the endpoints the console uses, each in the one shape it sends (lib/server/sign-in/). */
function route(guard: typeof authGet) {
  return async (request: NextRequest, context: Context): Promise<Response> => {
    const { nextauth } = await context.params;
    // Options are built on the first request, not at import: `next build` has no secret to read.
    return guard(request, nextauth, (checked) => NextAuth(checked, context, authOptions()));
  };
}

export const GET = route(authGet);
export const POST = route(authPost);
