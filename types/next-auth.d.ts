// What OxMQ keeps in next-auth's objects (lib/server/auth.ts): the session token carries the
// user's credential stamp, its session id and sign-in time (for revocation and the absolute
// lifetime), and the session the user's current role, looked up per request.
import type { Role } from '@/lib/roles';

declare module 'next-auth' {
  interface User {
    stamp?: string;
  }
  interface Session {
    user?: { name: string; role: Role };
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    stamp?: string;
    sid?: string;
    signedInAt?: number;
  }
}
