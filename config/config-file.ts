/**
 * The optional JSON config file: `oxmq.config.json` in the working directory, or the file
 * OXMQ_CONFIG names (which must then exist). Its keys are setting names; its values strings,
 * numbers or booleans, handed on as the strings the environment would hold.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ConfigProblem } from './config-error';

export const DEFAULT_CONFIG_FILE = 'oxmq.config.json';
export const CONFIG_PATH_SETTING = 'OXMQ_CONFIG';

export interface ConfigFile {
  /** Absolute path of the file read. */
  readonly path: string;
  /** Valid entries only, as strings. */
  readonly values: ReadonlyMap<string, string>;
}

export interface ConfigFileResult {
  readonly file?: ConfigFile;
  readonly problems: ConfigProblem[];
}

/**
 * Reads and checks the config file. `known` is every setting name some process reads: a key
 * outside it is reported (with the nearest known name), because a typo in a file is otherwise
 * silently ignored.
 */
export function readConfigFile(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  known: ReadonlySet<string>,
): ConfigFileResult {
  const explicit = env[CONFIG_PATH_SETTING];
  const file = path.resolve(cwd, explicit ? explicit : DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) {
    if (!explicit) return { problems: [] };
    return {
      problems: [
        { setting: CONFIG_PATH_SETTING, source: 'environment', message: `no such file: ${file}` },
      ],
    };
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return {
      problems: [{ source: file, message: `is not valid JSON (${(error as Error).message})` }],
    };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return {
      problems: [{ source: file, message: 'must hold a JSON object: { "SETTING_NAME": value }' }],
    };
  }

  const values = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  for (const [key, value] of Object.entries(parsed)) {
    if (key === CONFIG_PATH_SETTING) {
      problems.push({
        setting: key,
        source: file,
        message: 'cannot be set in the config file; set it in the environment',
      });
    } else if (!known.has(key)) {
      const near = nearestName(key, known);
      problems.push({
        setting: key,
        source: file,
        message: `unknown setting${near ? ` (did you mean ${near}?)` : ''}`,
      });
    } else if (typeof value === 'string' || typeof value === 'boolean') {
      values.set(key, String(value));
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      values.set(key, String(value));
    } else {
      problems.push({
        setting: key,
        source: file,
        message: `must be a string, number or boolean, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
      });
    }
  }
  return { file: { path: file, values }, problems };
}

/** The known name closest to `name` by edit distance, if close enough to be a likely typo. */
function nearestName(name: string, known: ReadonlySet<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name.toUpperCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
