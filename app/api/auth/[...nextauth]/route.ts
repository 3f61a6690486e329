import NextAuth from 'next-auth';
import type { NextRequest } from 'next/server';
import { authOptions } from '@/lib/server/auth';

export const dynamic = 'force-dynamic';

// Options are built on the first request, not at import: `next build` has no secret to read.
function handler(request: NextRequest, context: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(request, context, authOptions());
}

export { handler as GET, handler as POST };
