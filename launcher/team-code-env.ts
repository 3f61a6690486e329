/**
 * The environment of the launcher's children that run team code (the worker runner and the demo
 * producer): the launcher's own, as the user set it, plus the settings the launcher decided for
 * that child (Redis, prefix, health port...), without the console's variables
 * (config/console-only-env.ts). The console alone gets those (system.ts).
 */
import { isConsoleOnlyVariable } from '../config/console-only-env';

export function teamCodeEnv(
  launcherEnv: NodeJS.ProcessEnv,
  childSettings: Readonly<Record<string, string>>,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...launcherEnv, ...childSettings };
  for (const name of Object.keys(env)) if (isConsoleOnlyVariable(name)) delete env[name];
  return env;
}
