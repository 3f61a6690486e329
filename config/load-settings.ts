/**
 * One process's settings: the environment over an optional JSON config file, validated with the
 * process's zod schema. Each process calls this once from its settings module (runner/settings.ts,
 * launcher/settings.ts, demo/settings.ts); nothing else reads process.env.
 */
import type { z } from 'zod';
import { ConfigError, type ConfigProblem } from './config-error';
import { readConfigFile } from './config-file';
import { findKnownSetting, KNOWN_SETTING_NAMES } from './known-settings';

export interface LoadSettingsOptions {
  /** Usually process.env; tests pass their own. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where `oxmq.config.json` is looked for and a relative OXMQ_CONFIG is resolved from. */
  readonly cwd: string;
}

const SHOWN_VALUE_LENGTH = 80;

/**
 * Parses `schema` (a z.object whose keys are setting names and whose fields take strings) from
 * the environment over the config file. An empty environment variable counts as unset, so
 * `FOO= cmd` means "the file's value or the default". Throws ConfigError listing every problem
 * of the file and of every value, each with its source.
 */
export function loadSettings<Schema extends z.ZodObject>(
  schema: Schema,
  { env, cwd }: LoadSettingsOptions,
): z.output<Schema> {
  const names = Object.keys(schema.shape);
  // A name this process reads is known even if known-settings.ts forgot it.
  const known = new Set([...KNOWN_SETTING_NAMES, ...names]);
  const { file, problems } = readConfigFile(env, cwd, known);

  const raw: Record<string, string> = {};
  const sources = new Map<string, string>();
  for (const name of names) {
    const fromEnv = env[name];
    const fromFile = file?.values.get(name);
    if (fromEnv !== undefined && fromEnv !== '') {
      raw[name] = fromEnv;
      sources.set(name, 'environment');
    } else if (fromFile !== undefined && file) {
      raw[name] = fromFile;
      sources.set(name, file.path);
    }
  }

  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(describeIssue(issue, raw, sources));
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  return parsed.data;
}

function describeIssue(
  issue: z.core.$ZodIssue,
  raw: Record<string, string>,
  sources: ReadonlyMap<string, string>,
): ConfigProblem {
  const head = issue.path[0];
  if (typeof head !== 'string') return { source: 'settings', message: issue.message };
  const value = raw[head];
  if (value === undefined) {
    // A rule across settings (config/redis-settings.ts) may name one that was left unset.
    const message = issue.code === 'custom' ? issue.message : 'is required';
    return { setting: head, source: 'not set', message };
  }
  const known = findKnownSetting(head);
  const secret = known?.secret === true;
  const readable = known?.shownAs ? known.shownAs(value) : value;
  const shown =
    readable.length > SHOWN_VALUE_LENGTH ? `${readable.slice(0, SHOWN_VALUE_LENGTH)}…` : readable;
  return {
    setting: head,
    source: sources.get(head) ?? 'not set',
    message: secret ? issue.message : `${issue.message}, got ${JSON.stringify(shown)}`,
  };
}
