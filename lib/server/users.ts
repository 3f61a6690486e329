/**
 * The console's users: the first admin from OXMQ_ADMIN_USER / OXMQ_ADMIN_PASSWORD plus any
 * listed in OXMQ_USERS (inline JSON, or the path of a JSON file) as
 * `[{ "username", "passwordHash" (bcrypt), "role" }]`. Loaded once.
 */
import 'server-only';
import { readFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { z } from 'zod';
import { ROLES, type Role } from '../roles';
import { getEnv } from './env';

export interface ConsoleUser {
  username: string;
  passwordHash: string;
  role: Role;
}

const BCRYPT_COST = 10;

const usersSchema = z.array(
  z.object({
    username: z.string().trim().min(1),
    passwordHash: z.string().regex(/^\$2[aby]\$\d{2}\$.{53}$/, 'must be a bcrypt hash'),
    role: z.enum(ROLES),
  }),
);

function readUsersConfig(value: string): unknown {
  const text = value.startsWith('[') ? value : readFileSync(value, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `OXMQ_USERS is neither a JSON array nor a readable JSON file: ${String(error)}`,
    );
  }
}

function loadUsers(): Map<string, ConsoleUser> {
  const env = getEnv();
  const users = new Map<string, ConsoleUser>();
  if (env.OXMQ_USERS !== undefined) {
    const parsed = usersSchema.safeParse(readUsersConfig(env.OXMQ_USERS));
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      throw new Error(`OXMQ_USERS is invalid: ${problems.join('; ')}`);
    }
    for (const user of parsed.data) users.set(user.username, user);
  }
  if (env.OXMQ_ADMIN_USER !== undefined && env.OXMQ_ADMIN_PASSWORD !== undefined) {
    // Hashed once at startup, so the plain password is compared exactly like configured ones
    // and never kept beyond the environment object.
    users.set(env.OXMQ_ADMIN_USER, {
      username: env.OXMQ_ADMIN_USER,
      passwordHash: bcrypt.hashSync(env.OXMQ_ADMIN_PASSWORD, BCRYPT_COST),
      role: 'admin',
    });
  }
  return users;
}

let users: Map<string, ConsoleUser> | undefined;

// Compared against when the username is unknown, so a wrong name costs as long as a wrong
// password and response times do not reveal which usernames exist.
const DUMMY_HASH = bcrypt.hashSync('not-a-user', BCRYPT_COST);

/** The user when the password matches, else null. */
export async function verifyCredentials(
  username: string,
  password: string,
): Promise<Omit<ConsoleUser, 'passwordHash'> | null> {
  users ??= loadUsers();
  const user = users.get(username);
  const matches = await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH);
  return user && matches ? { username: user.username, role: user.role } : null;
}
