/**
 * The launcher's settings (`npm start`): the environment over oxmq.config.json, read once here
 *. Besides its own settings it reads the console's, so one config file serves
 * every process: the launcher hands them to the console's environment, which reads no file.
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
  REDIS_SETTING_NAMES,
  REDIS_SETTINGS_FIELDS,
  redisSettingsEnv,
  redisTarget,
  type RedisSettingName,
  type RedisTarget,
} from '../config/redis-settings';
import { CONSOLE_ENV_KEYS } from '../lib/server/env';

const redisSettingNames: ReadonlySet<string> = new Set(REDIS_SETTING_NAMES);

/**
 * Passed through to the console as they are (its own schema checks them), except the Redis
 * connection settings, which the launcher reads itself and decides (embedded or external).
 */
export const CONSOLE_SETTING_NAMES = CONSOLE_ENV_KEYS.filter(
  (name): name is Exclude<(typeof CONSOLE_ENV_KEYS)[number], RedisSettingName> =>
    !redisSettingNames.has(name),
);

const passThrough = z.string().optional();

export const LAUNCHER_SETTINGS_SCHEMA = z
  .object({
    ...REDIS_SETTINGS_FIELDS,
    OXMQ_CLUSTER_HASH_TAGS: booleanField(false),
    OXMQ_PREFIX: prefixField('bull'),
    PORT: portField(3000).refine((port) => port > 0, 'must be a port number from 1 to 65535'),
    HOST: hostField('127.0.0.1'),
    OXMQ_DATA_DIR: z.string().trim().min(1, 'must be a folder path').default('.oxmq'),
    OXMQ_DEMO: booleanField(false),
    OXMQ_WORKER: booleanField(true),
    OXMQ_PROCESSORS_DIR: commaListField(['processors']),
    WORKER_HEALTH_PORT: portField(3001),
    OXMQ_SHUTDOWN_TIMEOUT_MS: positiveIntMsField(25_000),
    OXMQ_LOG_LEVEL: logLevelField('info'),
    ...Object.fromEntries(CONSOLE_SETTING_NAMES.map((name) => [name, passThrough])),
  })
  .superRefine(checkRedisSettings);

export type ConsoleSettingName = (typeof CONSOLE_SETTING_NAMES)[number];

export interface LauncherSettings {
  /** Unset: the launcher starts and owns a redis-server (see embedded-redis.ts). */
  readonly redis?: RedisTarget;
  /** The connection settings given, as the console, the runner and the demo read them. */
  readonly redisEnv: Readonly<Record<string, string>>;
  /** Passed on to the runner and the demo. */
  readonly clusterHashTags: boolean;
  readonly prefix: string;
  readonly port: number;
  /** The address the console listens on (loopback unless set). */
  readonly host: string;
  /** Absolute. */
  readonly dataDir: string;
  readonly demo: boolean;
  readonly worker: boolean;
  /** As given (the runner resolves them against the same working directory). */
  readonly processorsDirs: readonly string[];
  readonly workerHealthPort: number;
  readonly shutdownTimeoutMs: number;
  readonly logLevel: LogLevel;
  /** The console's settings that were set, from the environment or the config file. */
  readonly console: Partial<Record<ConsoleSettingName, string>>;
}

/** What the command line may say: `npm start -- --demo` and `--no-worker`. */
export interface LauncherFlags {
  demo?: boolean;
  worker?: boolean;
}

export class LauncherUsageError extends Error {
  override readonly name = 'LauncherUsageError';
  readonly code = 'USAGE';
}

export function parseLauncherFlags(args: readonly string[]): LauncherFlags {
  const flags: LauncherFlags = {};
  for (const arg of args) {
    if (arg === '--demo') flags.demo = true;
    else if (arg === '--no-worker') flags.worker = false;
    else {
      throw new LauncherUsageError(
        `unknown argument ${JSON.stringify(arg)}; npm start accepts --demo and --no-worker`,
      );
    }
  }
  return flags;
}

/** Throws ConfigError naming every bad setting and where it came from. */
export function loadLauncherSettings(
  flags: LauncherFlags = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): LauncherSettings {
  const raw = loadSettings(LAUNCHER_SETTINGS_SCHEMA, { env, cwd });
  const consoleSettings: Partial<Record<ConsoleSettingName, string>> = {};
  for (const name of CONSOLE_SETTING_NAMES) {
    const value = (raw as Record<string, unknown>)[name];
    if (typeof value === 'string') consoleSettings[name] = value;
  }
  return {
    redis: redisTarget(raw),
    redisEnv: redisSettingsEnv(raw),
    clusterHashTags: raw.OXMQ_CLUSTER_HASH_TAGS,
    prefix: raw.OXMQ_PREFIX,
    port: raw.PORT,
    host: raw.HOST,
    dataDir: path.resolve(cwd, raw.OXMQ_DATA_DIR),
    demo: flags.demo ?? raw.OXMQ_DEMO,
    worker: flags.worker ?? raw.OXMQ_WORKER,
    processorsDirs: raw.OXMQ_PROCESSORS_DIR,
    workerHealthPort: raw.WORKER_HEALTH_PORT,
    shutdownTimeoutMs: raw.OXMQ_SHUTDOWN_TIMEOUT_MS,
    logLevel: raw.OXMQ_LOG_LEVEL,
    console: consoleSettings,
  };
}
