/** The console users every console test run configures: one per role. */
import bcrypt from 'bcryptjs';

export const ADMIN = { username: 'ada', password: 'ada-admin-password', role: 'admin' } as const;
export const OPERATOR = {
  username: 'olly',
  password: 'olly-operator-pw',
  role: 'operator',
} as const;
export const VIEWER = { username: 'vic', password: 'vic-viewer-password', role: 'viewer' } as const;

export const NEXTAUTH_SECRET = 'console-tests-secret-0123456789abcdef';

/** The environment for a console under test: the admin from env, the others via OXMQ_USERS. */
export function consoleEnv(redisPort: number, extra: Record<string, string> = {}) {
  // Cost 4: these hashes exist only for the test run; real configs use 10 or more.
  const users = [OPERATOR, VIEWER].map((user) => ({
    username: user.username,
    passwordHash: bcrypt.hashSync(user.password, 4),
    role: user.role,
  }));
  return {
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    OXMQ_PREFIXES: 'bull,console-b',
    OXMQ_ADMIN_USER: ADMIN.username,
    OXMQ_ADMIN_PASSWORD: ADMIN.password,
    OXMQ_USERS: JSON.stringify(users),
    NEXTAUTH_SECRET,
    ...extra,
  };
}
