/**
 * The console's environment, validated with zod and read once. Nothing else
 * reads process.env. Parsing is lazy: `next build` imports route modules without a runtime
 * environment, so a missing secret must fail the first request, not the build.
 */
import { z } from 'zod';
import { booleanField } from '../../config/fields';
import {
  checkRedisSettings,
  REDIS_SETTING_NAMES,
  REDIS_SETTINGS_FIELDS,
  redisTarget,
  type RedisTarget,
} from '../../config/redis-settings';
import { webhooksSetting } from './notify/webhooks';
import { isHttpUrl } from './http-url';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const prefixList = z
  .string()
  .default('bull')
  .transform((value) =>
    value
      .split(',')
      .map((prefix) => prefix.trim())
      .filter((prefix) => prefix !== ''),
  )
  .pipe(
    z
      .array(z.string().regex(/^[^\s*?[\]\\]+$/, 'a prefix may not contain spaces or * ? [ ] \\'))
      .min(1, 'list at least one prefix'),
  );

/** A whole number from a string, within bounds; the default when unset. */
const wholeNumber = (min: number, max: number, fallback: number, unit: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number of ${unit}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be from ${min} to ${max} ${unit}`)
    .default(fallback);

const httpUrl = z.string().trim().refine(isHttpUrl, 'must be an http:// or https:// URL');

const schema = z
  .object({
    // The same fields and rules as the launcher's and the runner's (config/redis-settings.ts).
    ...REDIS_SETTINGS_FIELDS,
    OXMQ_PREFIXES: prefixList,
    OXMQ_ADMIN_USER: z.string().trim().min(1).optional(),
    OXMQ_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
    OXMQ_USERS: z.string().trim().min(1).optional(),
    OXMQ_READ_ONLY: booleanFlag,
    OXMQ_HISTORY_SAMPLER: booleanField(true),
    // Extra key names to redact, added to the defaults (lib/server/redact.ts).
    OXMQ_REDACT_KEYS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== ''),
      ),
    // GET /api/prometheus (docs/metrics.md): answers 404 unless a token is set. RFC 6750's token
    // characters only, so a pasted token with a stray newline fails here, not at every scrape.
    OXMQ_METRICS_TOKEN: z
      .string()
      .min(16, 'must be at least 16 characters (openssl rand -hex 32)')
      .regex(/^[A-Za-z0-9._~+/-]+=*$/, 'may hold only letters, digits and - . _ ~ + / (then =)')
      .optional(),
    OXMQ_METRICS_CACHE_MS: wholeNumber(0, 3_600_000, 5_000, 'ms'),
    // Audit entries older than this are trimmed (engine/admin/redis/audit.ts); the count caps too.
    OXMQ_AUDIT_RETENTION_DAYS: wholeNumber(1, 3_650, 90, 'days'),
    OXMQ_METRICS_MAX_QUEUES: wholeNumber(1, 100_000, 500, 'queues'),
    // A waiting job older than this makes the overview's "old backlog" problem (a week at most).
    OXMQ_OLD_BACKLOG_MINUTES: wholeNumber(1, 10_080, 10, 'minutes'),
    // Reverse proxies in front of the console that append to X-Forwarded-For; 0 means none, and
    // the header is then ignored (lib/server/sign-in/client-address.ts).
    OXMQ_TRUSTED_PROXY_HOPS: wholeNumber(0, 10, 0, 'proxies'),
    // A session ends this long after its sign-in however active it is (lib/server/auth.ts).
    OXMQ_SESSION_ABSOLUTE_HOURS: wholeNumber(1, 720, 24, 'hours'),
    // Console links to other tools (lib/links.ts); unset means no link.
    OXMQ_TRACE_URL: httpUrl
      .refine((url) => url.includes('{traceId}'), 'must contain {traceId} where the trace id goes')
      .optional(),
    OXMQ_GRAFANA_URL: httpUrl.optional(),
    // Notifications of queue problems to webhooks (lib/server/notify/, docs/observability.md).
    OXMQ_NOTIFY_WEBHOOKS: webhooksSetting,
    OXMQ_NOTIFY_INTERVAL_MS: wholeNumber(100, 3_600_000, 30_000, 'ms'),
    OXMQ_NOTIFY_PAUSED_SECONDS: wholeNumber(1, 604_800, 1_800, 'seconds'),
    OXMQ_NOTIFY_MAX_ATTEMPTS: wholeNumber(1, 20, 5, 'attempts'),
    OXMQ_NOTIFY_RETRY_MS: wholeNumber(10, 600_000, 1_000, 'ms'),
    OXMQ_NOTIFY_TIMEOUT_MS: wholeNumber(100, 60_000, 5_000, 'ms'),
    NEXTAUTH_SECRET: z
      .string({ error: 'is required: signs the session cookies (openssl rand -base64 32)' })
      .min(16, 'must be at least 16 characters (openssl rand -base64 32)'),
    NEXTAUTH_URL: z.url('must be the origin users open, e.g. http://localhost:3000'),
  })
  .superRefine(checkRedisSettings)
  .refine(
    (env) => (env.OXMQ_ADMIN_USER === undefined) === (env.OXMQ_ADMIN_PASSWORD === undefined),
    {
      message: 'set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD together',
      path: ['OXMQ_ADMIN_PASSWORD'],
    },
  )
  .refine((env) => env.OXMQ_ADMIN_USER !== undefined || env.OXMQ_USERS !== undefined, {
    message: 'no users configured: set OXMQ_ADMIN_USER and OXMQ_ADMIN_PASSWORD, or OXMQ_USERS',
    path: ['OXMQ_ADMIN_USER'],
  });

/** Every variable the console reads (the launcher passes these through from its config). */
export const CONSOLE_ENV_KEYS = [
  ...REDIS_SETTING_NAMES,
  'OXMQ_PREFIXES',
  'OXMQ_ADMIN_USER',
  'OXMQ_ADMIN_PASSWORD',
  'OXMQ_USERS',
  'OXMQ_READ_ONLY',
  'OXMQ_HISTORY_SAMPLER',
  'OXMQ_REDACT_KEYS',
  'OXMQ_METRICS_TOKEN',
  'OXMQ_METRICS_CACHE_MS',
  'OXMQ_METRICS_MAX_QUEUES',
  'OXMQ_OLD_BACKLOG_MINUTES',
  'OXMQ_AUDIT_RETENTION_DAYS',
  'OXMQ_TRUSTED_PROXY_HOPS',
  'OXMQ_SESSION_ABSOLUTE_HOURS',
  'OXMQ_TRACE_URL',
  'OXMQ_GRAFANA_URL',
  'OXMQ_NOTIFY_WEBHOOKS',
  'OXMQ_NOTIFY_INTERVAL_MS',
  'OXMQ_NOTIFY_PAUSED_SECONDS',
  'OXMQ_NOTIFY_MAX_ATTEMPTS',
  'OXMQ_NOTIFY_RETRY_MS',
  'OXMQ_NOTIFY_TIMEOUT_MS',
  'NEXTAUTH_SECRET',
  'NEXTAUTH_URL',
] as const;

export type ConsoleEnv = z.infer<typeof schema>;

/** The Redis the console reads: REDIS_URL's default when no connection setting is given. */
export function consoleRedisTarget(env: ConsoleEnv): RedisTarget {
  return redisTarget(env, 'redis://127.0.0.1:6379');
}

class EnvError extends Error {
  override readonly name = 'EnvError';
  readonly code = 'INVALID_ENVIRONMENT';
}

let cached: ConsoleEnv | undefined;

/** A problem with one console setting, for a launcher that checks them before starting it. */
export interface ConsoleEnvProblem {
  setting: string;
  message: string;
}

/**
 * Checks a console environment without reading process.env, so the launcher can refuse a bad
 * value at start instead of letting the first request fail. Empty strings count as unset.
 */
export function consoleEnvProblems(
  env: Readonly<Record<string, string | undefined>>,
): ConsoleEnvProblem[] {
  const parsed = schema.safeParse(pickEnv(env));
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({
    setting: issue.path.join('.') || '(environment)',
    message: issue.message,
  }));
}

function pickEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const raw: Record<string, string> = {};
  for (const key of CONSOLE_ENV_KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  return raw;
}

/** The validated environment; throws EnvError listing every problem at once. */
export function getEnv(): ConsoleEnv {
  if (cached) return cached;
  // Empty strings count as unset: `FOO= npm start` should mean "default", not "invalid".
  const parsed = schema.safeParse(pickEnv(process.env));
  if (!parsed.success) {
    const lines = consoleEnvProblems(process.env).map(
      ({ setting, message }) => `  ${setting}: ${message}`,
    );
    throw new EnvError(`OxMQ console: invalid environment\n${lines.join('\n')}`);
  }
  cached = parsed.data;
  return cached;
}
