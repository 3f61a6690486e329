/**
 * Where the Redis holding the queues is: the one set of connection settings every process reads
 * (runner, demo, console, launcher), validated here and nowhere else. Exactly one form:
 *
 * - REDIS_URL: one server (redis:// or rediss://), credentials in the URL;
 * - REDIS_CLUSTER_NODES: a Redis Cluster, some of its nodes as host:port (the rest are found);
 * - REDIS_SENTINELS + REDIS_SENTINEL_NAME: the master a group of sentinels watches.
 *
 * REDIS_USERNAME / REDIS_PASSWORD authenticate to cluster nodes or the sentinel-managed master
 * (and its replicas), REDIS_SENTINEL_PASSWORD to the sentinels, REDIS_TLS to every connection.
 * Each schema that reads them spreads REDIS_SETTINGS_FIELDS into its object and adds
 * checkRedisSettings as a refinement, so the rules across fields are one rule everywhere.
 */
import { z } from 'zod';
import {
  booleanField,
  optionalHostPortListField,
  optionalRedisUrlField,
  type HostPort,
} from './fields';

export const REDIS_SETTINGS_FIELDS = {
  REDIS_URL: optionalRedisUrlField(),
  REDIS_CLUSTER_NODES: optionalHostPortListField(),
  REDIS_SENTINELS: optionalHostPortListField(),
  REDIS_SENTINEL_NAME: z.string().trim().min(1, "must be the sentinels' master name").optional(),
  REDIS_USERNAME: z.string().trim().min(1, 'must not be empty').optional(),
  REDIS_PASSWORD: z.string().min(1, 'must not be empty').optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1, 'must not be empty').optional(),
  REDIS_TLS: booleanField(false),
};

/** Every connection setting's name, in the order docs/configuration.md lists them. */
export const REDIS_SETTING_NAMES = Object.keys(REDIS_SETTINGS_FIELDS) as RedisSettingName[];
export type RedisSettingName = keyof typeof REDIS_SETTINGS_FIELDS;

/** The parsed fields, before the checks across them. */
export type RawRedisSettings = z.output<z.ZodObject<typeof REDIS_SETTINGS_FIELDS>>;

/** The three ways to say where Redis is; exactly one may be given. */
const FORMS = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const;
const ONE_FORM = 'give exactly one of REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS';

export interface RedisCredentials {
  readonly username?: string;
  readonly password?: string;
}

/** Validated connection settings: what config/redis-connection.ts opens connections from. */
export type RedisTarget =
  | { readonly kind: 'url'; readonly url: string; readonly tls: boolean }
  | ({
      readonly kind: 'cluster';
      readonly nodes: readonly HostPort[];
      readonly tls: boolean;
    } & RedisCredentials)
  | ({
      readonly kind: 'sentinel';
      readonly sentinels: readonly HostPort[];
      readonly name: string;
      readonly sentinelPassword?: string;
      readonly tls: boolean;
    } & RedisCredentials);

interface Problem {
  setting: RedisSettingName;
  message: string;
}

/** Every rule across the fields, as problems naming the setting each is about. */
export function redisSettingsProblems(raw: RawRedisSettings): Problem[] {
  const problems: Problem[] = [];
  const given = FORMS.filter((name) => raw[name] !== undefined);
  if (given.length > 1) {
    // Reported on the last one given, never on REDIS_URL: its value (with a password) is not shown.
    problems.push({
      setting: given[given.length - 1]!,
      message: `${given.join(' and ')} are both set: ${ONE_FORM}`,
    });
  }
  const sentinels = raw.REDIS_SENTINELS !== undefined;
  const clusterOrSentinels = sentinels || raw.REDIS_CLUSTER_NODES !== undefined;
  if (sentinels && raw.REDIS_SENTINEL_NAME === undefined) {
    problems.push({
      setting: 'REDIS_SENTINEL_NAME',
      message: 'is required with REDIS_SENTINELS: the name of the master the sentinels watch',
    });
  }
  if (!sentinels) {
    for (const setting of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD'] as const) {
      if (raw[setting] !== undefined)
        problems.push({ setting, message: 'applies only with REDIS_SENTINELS' });
    }
  }
  if (!clusterOrSentinels) {
    for (const setting of ['REDIS_USERNAME', 'REDIS_PASSWORD'] as const) {
      if (raw[setting] !== undefined) {
        problems.push({
          setting,
          message:
            'applies only with REDIS_CLUSTER_NODES or REDIS_SENTINELS; with REDIS_URL put the ' +
            'credentials in the URL (redis://user:password@host:port)',
        });
      }
    }
  } else if (raw.REDIS_USERNAME !== undefined && raw.REDIS_PASSWORD === undefined) {
    problems.push({ setting: 'REDIS_PASSWORD', message: 'is required with REDIS_USERNAME' });
  }
  return problems;
}

/** The refinement a schema holding REDIS_SETTINGS_FIELDS adds: `.superRefine(checkRedisSettings)`. */
export function checkRedisSettings(raw: RawRedisSettings, context: z.RefinementCtx): void {
  for (const { setting, message } of redisSettingsProblems(raw)) {
    context.addIssue({ code: 'custom', message, path: [setting] });
  }
}

/**
 * The target the settings name. `defaultUrl` is used when none of the three forms is given;
 * without one the answer is then undefined (the launcher starts its own Redis).
 */
export function redisTarget(raw: RawRedisSettings, defaultUrl: string): RedisTarget;
export function redisTarget(raw: RawRedisSettings): RedisTarget | undefined;
export function redisTarget(raw: RawRedisSettings, defaultUrl?: string): RedisTarget | undefined {
  const tls = raw.REDIS_TLS;
  const credentials: RedisCredentials = {
    ...(raw.REDIS_USERNAME === undefined ? {} : { username: raw.REDIS_USERNAME }),
    ...(raw.REDIS_PASSWORD === undefined ? {} : { password: raw.REDIS_PASSWORD }),
  };
  if (raw.REDIS_CLUSTER_NODES) {
    return { kind: 'cluster', nodes: raw.REDIS_CLUSTER_NODES, tls, ...credentials };
  }
  if (raw.REDIS_SENTINELS) {
    return {
      kind: 'sentinel',
      sentinels: raw.REDIS_SENTINELS,
      name: raw.REDIS_SENTINEL_NAME ?? '',
      tls,
      ...credentials,
      ...(raw.REDIS_SENTINEL_PASSWORD === undefined
        ? {}
        : { sentinelPassword: raw.REDIS_SENTINEL_PASSWORD }),
    };
  }
  const url = raw.REDIS_URL ?? defaultUrl;
  if (url === undefined) return undefined;
  return { kind: 'url', url, tls: tls || url.startsWith('rediss://') };
}

/**
 * The settings as environment variables, for a process that hands them to a child (the
 * launcher): exactly the connection settings that were given, as the child reads them.
 */
export function redisSettingsEnv(raw: RawRedisSettings): Record<string, string> {
  const env: Record<string, string> = {};
  const list = (nodes: readonly HostPort[] | undefined) =>
    nodes?.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  const values: Record<RedisSettingName, string | undefined> = {
    REDIS_URL: raw.REDIS_URL,
    REDIS_CLUSTER_NODES: list(raw.REDIS_CLUSTER_NODES),
    REDIS_SENTINELS: list(raw.REDIS_SENTINELS),
    REDIS_SENTINEL_NAME: raw.REDIS_SENTINEL_NAME,
    REDIS_USERNAME: raw.REDIS_USERNAME,
    REDIS_PASSWORD: raw.REDIS_PASSWORD,
    REDIS_SENTINEL_PASSWORD: raw.REDIS_SENTINEL_PASSWORD,
    REDIS_TLS: raw.REDIS_TLS ? 'true' : undefined,
  };
  for (const [name, value] of Object.entries(values)) if (value !== undefined) env[name] = value;
  return env;
}
