// The role travels in the session JWT; these augment next-auth's types with it.
import type { Role } from '@/lib/roles';

declare module 'next-auth' {
  interface User {
    role?: Role;
  }
  interface Session {
    user?: { name: string; role: Role };
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    role?: Role;
  }
}
