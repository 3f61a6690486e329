/**
 * The embedded Redis' password (`requirepass`): generated once into
 * `<data dir>/redis-credentials.json` (mode 0600) and given to every piece in its REDIS_URL, so
 * another user of a shared host can neither connect to the launcher's Redis nor read the file.
 * A data folder from a launcher that ran Redis without a password just gets one at its next
 * start: Redis keeps no password of its own, it takes the one it is started with.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readSecretFile, writeSecretFile } from './private-files';

export function redisCredentialsFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'redis-credentials.json');
}

/** Base64url: no character needs escaping in a redis:// URL. */
const PASSWORD_PATTERN = /^[A-Za-z0-9_-]{32,}$/;

export function loadOrCreateRedisPassword(file: string): { password: string; created: boolean } {
  const stored = readSecretFile(file);
  if (stored && typeof stored === 'object' && 'password' in stored) {
    const { password } = stored;
    if (typeof password === 'string' && PASSWORD_PATTERN.test(password))
      return { password, created: false };
  }
  const password = randomBytes(32).toString('base64url');
  writeSecretFile(file, { password });
  return { password, created: true };
}
