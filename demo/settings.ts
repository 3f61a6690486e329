/**
 * The demo's settings, read once through the shared loader, so
 * `oxmq.config.json` works for the demo as it does for the runner and the launcher.
 *
 * - REDIS_URL (redis://127.0.0.1:6379), or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with
 *   REDIS_SENTINEL_NAME, and their credentials and TLS (config/redis-settings.ts): the Redis the
 *   demo feeds.
 * - OXMQ_CLUSTER_HASH_TAGS (false): wrap each demo queue's name in a hash tag. The order flow
 *   spans three queues, so on a Cluster give the demo a tagged prefix instead (`{demo}`), which
 *   puts every demo queue in one slot.
 * - OXMQ_PREFIX (bull): the key prefix of every demo queue.
 * - OXMQ_LOG_LEVEL (info): pino level of the producer's logs.
 * - OXMQ_DEMO_SPEED (1): how much faster than life the demo runs. Job durations, intervals
 *   between jobs, retry backoff and the digest schedule are divided by it (the partner-api rate
 *   limit is not: it is what that queue is there to show). Tests use 4-5 to see a whole cycle of
 *   every queue in seconds; keep 1 for a console a person watches.
 *
 * The processors read OXMQ_DEMO_SPEED here too: they run in the worker runner's process (or a
 * sandbox child of it), which inherits the same environment.
 */
import { z } from 'zod';
import { booleanField, logLevelField, prefixField, type LogLevel } from '../config/fields';
import { loadSettings } from '../config/load-settings';
import {
  checkRedisSettings,
  REDIS_SETTINGS_FIELDS,
  redisTarget,
  type RedisTarget,
} from '../config/redis-settings';

const SPEED_MESSAGE = 'must be a number from 0.1 to 100 (1 = real time)';

export const DEMO_SETTINGS_SCHEMA = z
  .object({
    ...REDIS_SETTINGS_FIELDS,
    OXMQ_CLUSTER_HASH_TAGS: booleanField(false),
    OXMQ_PREFIX: prefixField('bull'),
    OXMQ_LOG_LEVEL: logLevelField('info'),
    OXMQ_DEMO_SPEED: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, SPEED_MESSAGE)
      .transform(Number)
      .refine((speed) => speed >= 0.1 && speed <= 100, SPEED_MESSAGE)
      .default(1),
  })
  .superRefine(checkRedisSettings);

export interface DemoSettings {
  redis: RedisTarget;
  clusterHashTags: boolean;
  prefix: string;
  logLevel: LogLevel;
  speed: number;
}

/** Throws ConfigError naming every bad setting and where it came from. */
export function loadDemoSettings(
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): DemoSettings {
  const raw = loadSettings(DEMO_SETTINGS_SCHEMA, { env, cwd });
  return {
    redis: redisTarget(raw, 'redis://127.0.0.1:6379'),
    clusterHashTags: raw.OXMQ_CLUSTER_HASH_TAGS,
    prefix: raw.OXMQ_PREFIX,
    logLevel: raw.OXMQ_LOG_LEVEL,
    speed: raw.OXMQ_DEMO_SPEED,
  };
}

let cached: DemoSettings | undefined;

/** The process's settings, read on first use (so importing a processor module reads nothing). */
export function demoSettings(): DemoSettings {
  cached ??= loadDemoSettings();
  return cached;
}
