/**
 * The worker runner's settings: the environment over oxmq.config.json, read once at startup.
 * This is the only module of the runner that reads process.env.
 */
import path from 'node:path';
import { z } from 'zod';
import {
  booleanField,
  commaListField,
  hostField,
  logLevelField,
  portField,
  positiveIntMsField,
  prefixField,
  type LogLevel,
} from '../config/fields';
import { loadSettings } from '../config/load-settings';
import {
  checkRedisSettings,
  REDIS_SETTINGS_FIELDS,
  redisTarget,
  type RedisTarget,
} from '../config/redis-settings';
import { serviceNameGiven, tracingRequested } from '../config/otel-env';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export const RUNNER_SETTINGS_SCHEMA = z
  .object({
    ...REDIS_SETTINGS_FIELDS,
    OXMQ_CLUSTER_HASH_TAGS: booleanField(false),
    OXMQ_PREFIX: prefixField('bull'),
    OXMQ_PROCESSORS_DIR: commaListField(['processors']),
    WORKER_HEALTH_PORT: portField(3001),
    WORKER_HEALTH_HOST: hostField('127.0.0.1'),
    WORKER_HEALTH_ALLOWED_HOSTS: commaListField([], {
      test: (name) => name === '*' || /^[a-z0-9.-]+$/i.test(name),
      message: 'must be a host name without port, or * for any',
    }),
    OXMQ_SHUTDOWN_TIMEOUT_MS: positiveIntMsField(25_000),
    OXMQ_LOG_LEVEL: logLevelField('info'),
    OXMQ_HISTORY_SAMPLER: booleanField(true),
  })
  .superRefine(checkRedisSettings);

export interface RunnerSettings {
  /** The Redis (server, Sentinel group or Cluster) the workers use. */
  readonly redis: RedisTarget;
  /** Workers wrap their queue's name in a hash tag (the engine's clusterHashTags). */
  readonly clusterHashTags: boolean;
  /** Default prefix of the queues served; a module's `options.prefix` overrides it. */
  readonly prefix: string;
  /** Absolute folders of processor modules, in the order given. */
  readonly processorsDirs: readonly string[];
  /** 0 = any free port (the chosen one is logged). */
  readonly healthPort: number;
  readonly healthHost: string;
  /**
   * Host names the health server answers besides addresses and localhost; `*`: any
   * (runner/host-check.ts).
   */
  readonly healthAllowedHosts: readonly string[];
  readonly shutdownTimeoutMs: number;
  readonly logLevel: LogLevel;
  /** Takes part in sampling the backlog history (engine/admin/redis/backlog-sampler.ts). */
  readonly historySampler: boolean;
  /** The standard OTEL_* variables ask for traces (the SDK reads them itself). */
  readonly tracing: boolean;
  /** The OTEL_* variables name the service (else the runner calls itself oxmq-worker). */
  readonly otelServiceNameGiven: boolean;
}

/** Throws ConfigError naming every bad setting and where it came from. */
export function loadRunnerSettings(
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): RunnerSettings {
  const raw = loadSettings(RUNNER_SETTINGS_SCHEMA, { env, cwd });
  return {
    redis: redisTarget(raw, DEFAULT_REDIS_URL),
    clusterHashTags: raw.OXMQ_CLUSTER_HASH_TAGS,
    prefix: raw.OXMQ_PREFIX,
    processorsDirs: raw.OXMQ_PROCESSORS_DIR.map((dir) => path.resolve(cwd, dir)),
    healthPort: raw.WORKER_HEALTH_PORT,
    healthHost: raw.WORKER_HEALTH_HOST,
    healthAllowedHosts: raw.WORKER_HEALTH_ALLOWED_HOSTS,
    shutdownTimeoutMs: raw.OXMQ_SHUTDOWN_TIMEOUT_MS,
    logLevel: raw.OXMQ_LOG_LEVEL,
    historySampler: raw.OXMQ_HISTORY_SAMPLER,
    tracing: tracingRequested(env),
    otelServiceNameGiven: serviceNameGiven(env),
  };
}
