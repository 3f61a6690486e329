/**
 * The runner takes the console's variables (config/console-only-env.ts) out of its own
 * environment before it loads any processor module: started by the launcher it never gets them,
 * but a team may start it directly from a shell or a unit file that also holds the console's.
 * Taken out of process.env itself, since in-process processors read that, and sandbox children
 * (engine/sandbox/transport.ts) inherit it when they start: they then get what in-process
 * processors get, no more. Variables this does not know stay.
 */
import { isConsoleOnlyVariable } from '../config/console-only-env';

/** Removes them from `env` (process.env by default); returns the names removed, for the log. */
export function withholdConsoleEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const removed = Object.keys(env).filter(isConsoleOnlyVariable);
  for (const name of removed) delete env[name];
  return removed.sort();
}
