/**
 * What a newcomer's console needs but nobody configured: a session-signing secret and, when no
 * user is configured at all, an `admin` with a random password. Both are generated once and
 * kept in `<data dir>/console-credentials.json` (mode 0600), so sessions and the password
 * survive restarts. Anything set in the environment or the config file wins.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface GeneratedCredentials {
  nextauthSecret: string;
  adminUser: string;
  adminPassword: string;
}

export interface ConsoleAuthEnv {
  env: Record<string, string>;
  /** Set when the launcher made up the admin, so it can tell the user how to sign in. */
  generatedAdmin?: { username: string; password: string; file: string };
}

export function credentialsFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'console-credentials.json');
}

function loadOrCreate(file: string): GeneratedCredentials {
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<GeneratedCredentials>;
    if (stored.nextauthSecret && stored.adminUser && stored.adminPassword) {
      return stored as GeneratedCredentials;
    }
  }
  const created: GeneratedCredentials = {
    nextauthSecret: randomBytes(32).toString('base64url'),
    adminUser: 'admin',
    adminPassword: randomBytes(12).toString('base64url'),
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return created;
}

/** The auth variables to add to the console's environment (none that are already set). */
export function consoleAuthEnv(
  configured: Record<string, string | undefined>,
  dataDir: string,
): ConsoleAuthEnv {
  const hasUsers = Boolean(configured.OXMQ_ADMIN_USER || configured.OXMQ_USERS);
  if (configured.NEXTAUTH_SECRET && hasUsers) return { env: {} };
  const file = credentialsFile(dataDir);
  const generated = loadOrCreate(file);
  const env: Record<string, string> = {};
  if (!configured.NEXTAUTH_SECRET) env.NEXTAUTH_SECRET = generated.nextauthSecret;
  if (hasUsers) return { env };
  env.OXMQ_ADMIN_USER = generated.adminUser;
  env.OXMQ_ADMIN_PASSWORD = generated.adminPassword;
  return {
    env,
    generatedAdmin: { username: generated.adminUser, password: generated.adminPassword, file },
  };
}
