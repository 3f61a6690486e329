/**
 * Redaction of sensitive values in job data, options and return values, done on the server so
 * a secret never reaches the browser (issue 5 item 5). A key is sensitive when its name, lower
 * cased with `_`, `-` and spaces taken out, contains one of the configured names: `apiKey`,
 * `api_key` and `X-Api-Key` all match "apikey", `accessToken` matches "token". Over-redacting a
 * harmless key is the cheaper mistake. Nested objects and arrays are walked to a depth bound.
 */
import 'server-only';
import { getEnv } from './env';

export const DEFAULT_REDACT_KEYS = [
  'password',
  'passwd',
  'secret',
  'token',
  'authorization',
  'apikey',
  'cookie',
] as const;

/** What a redacted value is replaced with; edits that send it back keep the stored value. */
export const REDACTED = '[redacted]';

/** Deeper structures are cut rather than walked: a job payload this deep is not for reading. */
const MAX_DEPTH = 64;
const TOO_DEEP = '[too deep]';

const normalize = (key: string) => key.toLowerCase().replace(/[\s_-]/g, '');

export function redactKeys(): readonly string[] {
  return [...new Set([...DEFAULT_REDACT_KEYS, ...getEnv().OXMQ_REDACT_KEYS.map(normalize)])];
}

export function isSensitiveKey(key: string, names: readonly string[]): boolean {
  const normalized = normalize(key);
  return names.some((name) => name !== '' && normalized.includes(name));
}

/** A copy of `value` with every sensitive key's value replaced by REDACTED. */
export function redact(value: unknown, names: readonly string[] = redactKeys()): unknown {
  const walk = (node: unknown, depth: number): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (depth >= MAX_DEPTH) return TOO_DEEP;
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node)) {
      out[key] = isSensitiveKey(key, names) ? REDACTED : walk(child, depth + 1);
    }
    return out;
  };
  return walk(value, 0);
}

/**
 * New data from an edit of redacted data: wherever the edit still holds REDACTED under a
 * sensitive key, the stored value at the same path is kept, so an admin can change one field
 * without erasing the secrets they were never shown.
 */
export function restoreRedacted(
  edited: unknown,
  stored: unknown,
  names: readonly string[] = redactKeys(),
): unknown {
  const walk = (next: unknown, old: unknown, depth: number): unknown => {
    if (next === null || typeof next !== 'object' || depth >= MAX_DEPTH) return next;
    if (Array.isArray(next)) {
      return next.map((item, i) => walk(item, Array.isArray(old) ? old[i] : undefined, depth + 1));
    }
    const previous =
      old !== null && typeof old === 'object' && !Array.isArray(old)
        ? (old as Record<string, unknown>)
        : {};
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(next)) {
      out[key] =
        child === REDACTED && isSensitiveKey(key, names) && key in previous
          ? previous[key]
          : walk(child, previous[key], depth + 1);
    }
    return out;
  };
  return walk(edited, stored, 0);
}

/** A name's letters with an optional `_`, `-` or space between them, as free text writes keys. */
const looseName = (name: string) =>
  [...name].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s_-]?');

/**
 * Redacts `key=value` / `key: value` pairs in free text (failure reasons, stack traces) whose
 * key is sensitive; an `Authorization: Bearer <token>` loses its token too.
 */
export function redactText(text: string, names: readonly string[] = redactKeys()): string {
  const usable = names.filter((name) => name !== '');
  if (usable.length === 0) return text;
  const pattern = new RegExp(
    `(["']?)([\\w-]*?(?:${usable.map(looseName).join('|')})[\\w-]*)\\1(\\s*[:=]\\s*)(["']?)((?:bearer|basic|token)\\s+)?([^\\s"',;&}]+)\\4`,
    'gi',
  );
  return text.replace(
    pattern,
    (_match, quote: string, key: string, sep: string, vq: string, scheme: string | undefined) =>
      `${quote}${key}${quote}${sep}${vq}${scheme ?? ''}${REDACTED}${vq}`,
  );
}
