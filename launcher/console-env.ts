/**
 * The console's environment as the launcher starts it: the console settings from the
 * environment or the config file, and what a newcomer did not set
 * (a session secret and a first admin, generated once; NEXTAUTH_URL and OXMQ_PREFIXES from HOST,
 * PORT and OXMQ_PREFIX). Checked with the console's own schema before the console starts, so a bad
 * value stops `npm start` with its message instead of failing the first request.
 */
import { ConfigError } from '../config/config-error';
import { consoleEnvProblems } from '../lib/server/env';
import { defaultConsoleOrigin } from './console-address';
import { consoleAuthEnv, type GeneratedAdmin } from './console-credentials';
import type { LauncherSettings } from './settings';

export interface ConsoleEnvironment {
  env: Record<string, string>;
  /** Set when the launcher made up the admin, so it can say how to sign in. */
  generatedAdmin?: GeneratedAdmin;
  /** The address to open. */
  url: string;
}

/**
 * Without the Redis connection settings: the launcher adds them once it knows which Redis
 * (embedded or the one configured).
 */
export function consoleEnvironment(settings: LauncherSettings): ConsoleEnvironment {
  const configured: Record<string, string> = { ...settings.console };
  const auth = consoleAuthEnv(configured, settings.dataDir);
  const url = configured.NEXTAUTH_URL ?? defaultConsoleOrigin(settings.host, settings.port);
  const env: Record<string, string> = {
    OXMQ_PREFIXES: settings.prefix,
    ...configured,
    ...auth.env,
    NEXTAUTH_URL: url,
  };
  const problems = consoleEnvProblems(env);
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map(({ setting, message }) => ({
        setting,
        source: setting in configured ? 'console setting' : 'set by the launcher',
        message,
      })),
    );
  }
  return { env, generatedAdmin: auth.generatedAdmin, url };
}
