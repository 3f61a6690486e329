/**
 * Where `npm run fsck` connects, and the client it connects with: `--redis-url` when given, else
 * the connection settings the console and the worker runner read (config/redis-settings.ts:
 * REDIS_URL, REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_NAME, their credentials
 * and REDIS_TLS; the environment over oxmq.config.json), else redis://127.0.0.1:6379. Bad
 * settings throw ConfigError naming each one.
 */
import type { RedisOptions } from 'ioredis';
import { z } from 'zod';
import { loadSettings } from '../config/load-settings';
import { openCluster, openRedis, type RedisClient } from '../config/redis-connection';
import {
  checkRedisSettings,
  REDIS_SETTINGS_FIELDS,
  redisTarget,
  type RedisTarget,
} from '../config/redis-settings';

const DEFAULT_URL = 'redis://127.0.0.1:6379';
const SCHEMA = z.object({ ...REDIS_SETTINGS_FIELDS }).superRefine(checkRedisSettings);

export function fsckTarget(
  redisUrl: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): RedisTarget {
  if (redisUrl !== undefined) {
    return { kind: 'url', url: redisUrl, tls: redisUrl.startsWith('rediss://') };
  }
  return redisTarget(loadSettings(SCHEMA, { env, cwd }), DEFAULT_URL);
}

/** A client that is not connected yet and never retries: a CLI run fails fast and says why. */
export function fsckClient(target: RedisTarget): RedisClient {
  const options: RedisOptions = {
    connectionName: 'oxmq:fsck',
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  };
  if (target.kind === 'cluster') {
    return openCluster(target, options, { lazyConnect: true, clusterRetryStrategy: () => null });
  }
  return openRedis(target, { ...options, sentinelRetryStrategy: () => null });
}
