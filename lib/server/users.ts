/**
 * The console's users: the first admin from OXMQ_ADMIN_USER / OXMQ_ADMIN_PASSWORD plus any
 * listed in OXMQ_USERS (lib/server/users-file.ts). Looked up on every sign-in and on every
 * request of a session, so the configuration in force now decides who is signed in and with
 * which role, not what a session token remembers.
 */
import 'server-only';
import bcrypt from 'bcryptjs';
import type { Role } from '../roles';
import { getEnv } from './env';
import { credentialStamp } from './sign-in/credential-stamp';
import { DEFAULT_BCRYPT_COST, dummyHashFor } from './sign-in/dummy-hash';
import { UsersSource, type ConfiguredUser } from './users-file';

export interface SignedInUser {
  username: string;
  role: Role;
  /** Ties a session to the credential it was made with (credential-stamp.ts). */
  stamp: string;
}

interface KnownUser extends ConfiguredUser {
  stamp: string;
}

let fileUsers: UsersSource | undefined;
let envAdmin: KnownUser | undefined;

function envAdminUser(): KnownUser | undefined {
  const env = getEnv();
  if (env.OXMQ_ADMIN_USER === undefined || env.OXMQ_ADMIN_PASSWORD === undefined) return undefined;
  // Hashed once, so the plain password is compared exactly like configured ones. Its stamp
  // comes from the password itself: the hash's random salt changes at every start.
  envAdmin ??= {
    username: env.OXMQ_ADMIN_USER,
    passwordHash: bcrypt.hashSync(env.OXMQ_ADMIN_PASSWORD, DEFAULT_BCRYPT_COST),
    role: 'admin',
    stamp: credentialStamp(env.NEXTAUTH_SECRET, env.OXMQ_ADMIN_USER, env.OXMQ_ADMIN_PASSWORD),
  };
  return envAdmin;
}

/** Everyone configured now; the environment's admin wins over a file user of the same name. */
function knownUsers(): Map<string, KnownUser> {
  const env = getEnv();
  const users = new Map<string, KnownUser>();
  if (env.OXMQ_USERS !== undefined) {
    fileUsers ??= new UsersSource(env.OXMQ_USERS);
    for (const user of fileUsers.current()) {
      const stamp = credentialStamp(env.NEXTAUTH_SECRET, user.username, user.passwordHash);
      users.set(user.username, { ...user, stamp });
    }
  }
  const admin = envAdminUser();
  if (admin) users.set(admin.username, admin);
  return users;
}

/** Everyone configured now, by name (for the admins' users page). */
export function configuredUsers(): { username: string; role: Role }[] {
  return [...knownUsers().values()]
    .map(({ username, role }) => ({ username, role }))
    .sort((a, b) => a.username.localeCompare(b.username));
}

/** The user when the password matches, else null. */
export async function verifyCredentials(
  username: string,
  password: string,
): Promise<SignedInUser | null> {
  const users = knownUsers();
  const user = users.get(username);
  // An unknown name is checked against a hash as costly as the costliest real one, so a wrong
  // name takes as long as a wrong password.
  const hash = user?.passwordHash ?? dummyHashFor([...users.values()].map((u) => u.passwordHash));
  const matches = await bcrypt.compare(password, hash);
  return user && matches ? { username: user.username, role: user.role, stamp: user.stamp } : null;
}

/**
 * The user a session belongs to, as configured now: null when the user is gone or the
 * credential changed since the session was made. The role is today's, not the session's.
 */
export function sessionUser(username: unknown, stamp: unknown): SignedInUser | null {
  if (typeof username !== 'string' || typeof stamp !== 'string') return null;
  const user = knownUsers().get(username);
  if (!user || user.stamp !== stamp) return null;
  return { username: user.username, role: user.role, stamp: user.stamp };
}
