/**
 * deploy/compose.yaml read the way Docker Compose reads it, for the tests: YAML, then variable
 * interpolation in every string value (`${NAME}`, `${NAME:-default}`, `${NAME-default}`,
 * `${NAME:?error}`, `${NAME?error}`, `$$` for a dollar), then the short and long forms of
 * volumes normalised. No Docker here: this is the subset of the Compose specification the file
 * uses, so a form it does not know is an error rather than a silent pass.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export type Variables = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_]\w*)/g;

/** Compose's interpolation of one string; throws as Compose does for a missing required one. */
export function interpolate(text: string, variables: Variables): string {
  return text.replace(
    REFERENCE,
    (match, braced?: string, operator?: string, operand?: string, bare?: string) => {
      if (match === '$$') return '$';
      const name = braced ?? bare ?? '';
      const value = variables[name];
      const unset = value === undefined || (operator?.startsWith(':') === true && value === '');
      if (operator === ':-' || operator === '-') return unset ? (operand ?? '') : (value ?? '');
      if (operator === ':?' || operator === '?') {
        if (unset) throw new Error(`required variable ${name} is missing a value: ${operand}`);
        return value ?? '';
      }
      return value ?? '';
    },
  );
}

/** The names every `${…}` and `$NAME` of `text` refers to, and whether it is required (`?`). */
export function referencedVariables(text: string): Map<string, { required: boolean }> {
  const found = new Map<string, { required: boolean }>();
  for (const match of text.matchAll(REFERENCE)) {
    const name = match[1] ?? match[4];
    if (!name) continue;
    const required = match[2]?.endsWith('?') === true || found.get(name)?.required === true;
    found.set(name, { required });
  }
  return found;
}

function interpolateAll(value: unknown, variables: Variables): unknown {
  if (typeof value === 'string') return interpolate(value, variables);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, variables));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateAll(item, variables)]),
    );
  }
  return value;
}

export interface Mount {
  readonly type: 'bind' | 'volume';
  /** A bind mount's host path, absolute (resolved against the compose file's folder). */
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
}

export interface Service {
  readonly image?: string;
  readonly build?: { context: string; dockerfile: string; target?: string };
  readonly command?: string[];
  readonly environment: Record<string, string>;
  readonly ports: string[];
  readonly mounts: Mount[];
  readonly configs: { source: string; target: string }[];
  /** `stop_grace_period` in seconds (Docker's default: 10). */
  readonly stopGraceSeconds: number;
}

export interface ComposeFile {
  readonly dir: string;
  readonly services: Record<string, Service>;
  readonly volumes: string[];
  readonly configs: Record<string, { content?: string; file?: string }>;
}

interface RawService {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  command?: string[];
  environment?: Record<string, string | number | boolean>;
  ports?: string[];
  volumes?: (string | { type: string; source: string; target: string; read_only?: boolean })[];
  configs?: { source: string; target: string }[];
  stop_grace_period?: string;
}

/** A Compose duration such as `35s`, `1m30s` or `2m`, in seconds. */
function seconds(duration: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!match || duration === '') throw new Error(`duration ${duration}`);
  return Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
}

function mountOf(spec: NonNullable<RawService['volumes']>[number], dir: string): Mount {
  if (typeof spec !== 'string') {
    if (spec.type !== 'bind' && spec.type !== 'volume') throw new Error(`mount type ${spec.type}`);
    const source = spec.type === 'bind' ? path.resolve(dir, spec.source) : spec.source;
    return { type: spec.type, source, target: spec.target, readOnly: spec.read_only === true };
  }
  const [source = '', target = '', mode = ''] = spec.split(':');
  if (!target) throw new Error(`volume "${spec}" has no target (anonymous volumes are not used)`);
  const bind = source.startsWith('.') || source.startsWith('/');
  return {
    type: bind ? 'bind' : 'volume',
    source: bind ? path.resolve(dir, source) : source,
    target,
    readOnly: mode.split(',').includes('ro'),
  };
}

export function readComposeFile(file: string, variables: Variables): ComposeFile {
  const dir = path.dirname(file);
  const raw = interpolateAll(parse(readFileSync(file, 'utf8')), variables) as {
    services: Record<string, RawService>;
    volumes?: Record<string, unknown>;
    configs?: Record<string, { content?: string; file?: string }>;
  };
  const services: Record<string, Service> = {};
  for (const [name, service] of Object.entries(raw.services)) {
    services[name] = {
      ...(service.image !== undefined ? { image: service.image } : {}),
      ...(service.build ? { build: service.build } : {}),
      ...(service.command ? { command: service.command } : {}),
      environment: Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [key, String(value)]),
      ),
      ports: service.ports ?? [],
      mounts: (service.volumes ?? []).map((spec) => mountOf(spec, dir)),
      configs: service.configs ?? [],
      stopGraceSeconds: service.stop_grace_period ? seconds(service.stop_grace_period) : 10,
    };
  }
  return {
    dir,
    services,
    volumes: Object.keys(raw.volumes ?? {}),
    configs: raw.configs ?? {},
  };
}

/** `KEY=value` lines of an env file (Compose's .env), comments and blank lines skipped. */
export function readEnvFile(file: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const equals = trimmed.indexOf('=');
    if (equals <= 0) throw new Error(`not KEY=value: ${line}`);
    entries.set(trimmed.slice(0, equals), trimmed.slice(equals + 1));
  }
  return entries;
}
