/**
 * Which keys are sensitive. A key is sensitive when its name, lower-cased with `_`, `-`, `.` and
 * spaces taken out, contains one of the `names` (`apiKey`, `api_key` and `X-Api-Key` all contain
 * "apikey"), or when one of its words is one of the `words` (short names that would over-match
 * as substrings: `pass` redacts `db_pass` and `adminPass` but not `passenger` or `compass`;
 * `sid` redacts `connect.sid` but not `consider` or `inside`). Over-redacting a harmless key is
 * the cheaper mistake, so the substring rule stays wide.
 */

export const REDACTED = '[redacted]';

/** Names that make a key sensitive wherever they appear in it (normalized: see normalizeKey). */
export const DEFAULT_REDACT_NAMES = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'authorization',
  'apikey',
  'accesskey',
  'cookie',
  'credential',
  'privatekey',
  'privkey',
  'signature',
  'sessionid',
] as const;

/** Short names that make a key sensitive only as a whole word of it. */
export const DEFAULT_REDACT_WORDS = ['pass', 'pwd', 'pw', 'auth', 'sid', 'jwt'] as const;

export interface RedactionRules {
  /** Normalized names matched as substrings of a normalized key. */
  readonly names: readonly string[];
  /** Lower-case words matched against the words of a key. */
  readonly words: readonly string[];
}

export const DEFAULT_REDACTION: RedactionRules = {
  names: DEFAULT_REDACT_NAMES,
  words: DEFAULT_REDACT_WORDS,
};

export const REDACTION_LIMITS = {
  /** Object and array levels walked; deeper structures are cut, not shown. */
  maxDepth: 64,
  /** Strings longer than this are redacted as text, never parsed as JSON. */
  maxJsonStringChars: 256 * 1024,
  /** JSON strings inside JSON strings parsed at most this many levels deep. */
  maxJsonStringNesting: 3,
  /** Characters of a key the free-text pass considers; longer words are not keys. */
  maxTextKeyChars: 128,
  /** Characters of a URL's `user:password` looked at for the `@` that ends it. */
  maxUrlUserinfoChars: 512,
} as const;

export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[\s_.-]/g, '');
}

/** The words of a key: `dbPass` → db, pass; `DB_PASS` → db, pass; `X-Auth` → x, auth. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}

/** The defaults plus the configured extra names (additive: the defaults always apply). */
export function redactionRules(extraNames: readonly string[] = []): RedactionRules {
  const extra = extraNames.map(normalizeKey).filter((name) => name !== '');
  return {
    names: [...new Set([...DEFAULT_REDACT_NAMES, ...extra])],
    words: DEFAULT_REDACT_WORDS,
  };
}

export function isSensitiveKey(key: string, rules: RedactionRules = DEFAULT_REDACTION): boolean {
  const normalized = normalizeKey(key);
  if (rules.names.some((name) => name !== '' && normalized.includes(name))) return true;
  if (rules.words.length === 0) return false;
  return wordsOf(key).some((word) => rules.words.includes(word));
}

/**
 * A string value that names a sensitive key, as the `name` of a name/value pair or the first
 * item of a header tuple does. Only identifier-like strings count: a job's title such as
 * "Password reset mail" is prose, not a key, and must not hide the values beside it.
 */
export function isSensitiveKeyName(
  value: unknown,
  rules: RedactionRules = DEFAULT_REDACTION,
): value is string {
  return (
    typeof value === 'string' &&
    value.length <= REDACTION_LIMITS.maxTextKeyChars &&
    /^[\w.:-]+$/.test(value) &&
    isSensitiveKey(value, rules)
  );
}
