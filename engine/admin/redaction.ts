/**
 * Redaction of sensitive values in job-derived text: data, options, progress, return values,
 * failure reasons, stack traces, log lines. The console shows, searches and filters only this
 * redacted view, so a secret stored in a job can neither be read nor probed through it.
 *
 * Keys: a key is sensitive when its name, lower-cased with `_`, `-`, `.` and spaces taken out,
 * contains one of the `names` (`apiKey`, `api_key` and `X-Api-Key` all contain "apikey"), or
 * when one of its words is one of the `words` (short names that would over-match as substrings:
 * `pass` redacts `db_pass` and `adminPass` but not `passenger` or `compass`). Over-redacting a
 * harmless key is the cheaper mistake, so the substring rule stays wide.
 *
 * Strings: a string that holds a JSON object or array (bounded size and nesting) is parsed and
 * redacted by key; any other string is free text, where `key=value`, `key: "value"` and
 * `"key":"value"` pairs with a sensitive key lose their value, and URL credentials
 * (`redis://:pw@host`, `https://user:pw@host`, `https://token@host`) lose their secret part.
 *
 * Every pass is linear in the size of its input: the engine's admin layer runs it over every job
 * a search examines.
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
  'cookie',
  'credential',
  'privatekey',
  'privkey',
] as const;

/** Short names that make a key sensitive only as a whole word of it. */
export const DEFAULT_REDACT_WORDS = ['pass', 'pwd', 'auth'] as const;

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
} as const;

const TOO_DEEP = '[too deep]';

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

/** A copy of `value` with every sensitive value replaced by REDACTED (see the file comment). */
export function redactValue(value: unknown, rules: RedactionRules = DEFAULT_REDACTION): unknown {
  return walk(value, rules, 0, 0);
}

function walk(node: unknown, rules: RedactionRules, depth: number, nesting: number): unknown {
  if (typeof node === 'string') return redactString(node, rules, depth, nesting);
  if (node === null || typeof node !== 'object') return node;
  if (depth >= REDACTION_LIMITS.maxDepth) return TOO_DEEP;
  if (Array.isArray(node)) return node.map((item) => walk(item, rules, depth + 1, nesting));
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) {
    out[key] = isSensitiveKey(key, rules) ? REDACTED : walk(child, rules, depth + 1, nesting);
  }
  return out;
}

/** A string: JSON inside it is redacted by key, anything else as free text. */
export function redactString(
  text: string,
  rules: RedactionRules = DEFAULT_REDACTION,
  depth = 0,
  nesting = 0,
): string {
  const parsed = parseEmbeddedJson(text, nesting);
  if (parsed !== undefined) {
    const before = JSON.stringify(parsed);
    const after = JSON.stringify(walk(parsed, rules, depth + 1, nesting + 1));
    // Unchanged JSON keeps its own formatting; changed JSON is shown re-serialized.
    return after === before ? text : after;
  }
  return redactText(text, rules);
}

function parseEmbeddedJson(text: string, nesting: number): object | undefined {
  if (nesting >= REDACTION_LIMITS.maxJsonStringNesting) return undefined;
  if (text.length > REDACTION_LIMITS.maxJsonStringChars) return undefined;
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** scheme://userinfo@ : the userinfo stops at the first `/`, `?`, `#` or space. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s/?#@"'<>]*)@/gi;

/**
 * A key and its separator: an optional quote (maybe backslash-escaped, as JSON inside a string
 * writes it, at any level), the key, the same quote, then `:` or `=`. The look-behind keeps
 * keys at word starts and quotes at the start of their backslash run, so a long word or run is
 * tried once, not once per character.
 */
const KEY_AND_SEPARATOR = new RegExp(
  `(?<![\\w\\\\-])((?:\\\\{0,16}["'])?)([\\w-]{1,${REDACTION_LIMITS.maxTextKeyChars}})\\1([ \\t]*[:=][ \\t]*)`,
  'g',
);

/** A quoted value's opening quote, with the backslashes that escape it. */
const OPENING_QUOTE = /(\\{0,16})(["'])/y;

/** A bare value up to a delimiter, keeping an auth scheme before it. */
const BARE_VALUE = /((?:bearer|basic|digest|token)[ \t]+)?[^\s"'\\,;&{}[\]][^\s"'\\,;&}\]]*/iy;

/** Header-like keys whose bare value runs to the end of the line (`Cookie: a=1; b=2`). */
const LINE_VALUE_NAMES = ['cookie', 'authorization'];

/** Free text (failure reasons, stack traces, log lines): see the file comment. */
export function redactText(text: string, rules: RedactionRules = DEFAULT_REDACTION): string {
  const withoutUrlSecrets = text.replace(
    URL_CREDENTIALS,
    (_match, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return colon === -1
        ? `${scheme}${REDACTED}@`
        : `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`;
    },
  );
  return redactPairs(withoutUrlSecrets, rules);
}

/**
 * Where a quoted value ends: at the same quote escaped by as many backslashes as the opening
 * one (for an unescaped quote: by an even number), or, unclosed, at the line's end.
 */
function quotedValueEnd(
  text: string,
  from: number,
  quote: string,
  slashes: number,
): { end: number; closed: boolean } {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') return { end: i, closed: false };
    if (c !== quote) continue;
    let run = 0;
    while (i - run - 1 >= from && text[i - run - 1] === '\\') run++;
    if (slashes === 0 ? run % 2 === 0 : run === slashes) return { end: i + 1, closed: true };
  }
  return { end: text.length, closed: false };
}

/** The replacement of the value at `start` after a sensitive key, and where the value ends. */
function redactedValueAt(
  text: string,
  start: number,
  key: string,
): { replacement: string; end: number } | undefined {
  const opening = new RegExp(OPENING_QUOTE.source, 'y');
  opening.lastIndex = start;
  const quoted = opening.exec(text);
  if (quoted) {
    const open = quoted[0];
    const { end, closed } = quotedValueEnd(
      text,
      start + open.length,
      quoted[2]!,
      quoted[1]!.length,
    );
    // A closing quote's own escapes belong to it, not to the value.
    const close = closed ? open : '';
    return { replacement: `${open}${REDACTED}${close}`, end };
  }
  const bare = new RegExp(BARE_VALUE.source, BARE_VALUE.flags);
  bare.lastIndex = start;
  const found = bare.exec(text);
  if (!found) return undefined;
  if (LINE_VALUE_NAMES.some((name) => normalizeKey(key).includes(name))) {
    const lineEnd = text.indexOf('\n', start);
    let end = lineEnd === -1 ? text.length : lineEnd;
    // Keep a trailing carriage return so a CRLF text keeps its line ends.
    if (text[end - 1] === '\r') end -= 1;
    return { replacement: REDACTED, end };
  }
  return { replacement: `${found[1] ?? ''}${REDACTED}`, end: start + found[0].length };
}

function redactPairs(text: string, rules: RedactionRules): string {
  const keys = new RegExp(KEY_AND_SEPARATOR.source, 'g');
  let out = '';
  let copied = 0;
  for (let match = keys.exec(text); match !== null; match = keys.exec(text)) {
    const key = match[2]!;
    if (!isSensitiveKey(key, rules)) continue;
    const valueStart = match.index + match[0].length;
    const value = redactedValueAt(text, valueStart, key);
    if (!value) continue;
    out += text.slice(copied, valueStart) + value.replacement;
    copied = value.end;
    keys.lastIndex = value.end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * New data from an edit of redacted data: wherever the edit still holds what the redacted view
 * showed (REDACTED under a sensitive key, or a string equal to the stored string's redacted
 * form), the stored value at the same path is kept, so an admin can change one field without
 * erasing the secrets they were never shown.
 */
export function restoreRedacted(
  edited: unknown,
  stored: unknown,
  rules: RedactionRules = DEFAULT_REDACTION,
): unknown {
  const restore = (next: unknown, old: unknown, depth: number): unknown => {
    if (typeof next === 'string') {
      return typeof old === 'string' && next !== old && next === redactString(old, rules)
        ? old
        : next;
    }
    if (next === null || typeof next !== 'object' || depth >= REDACTION_LIMITS.maxDepth) {
      return next;
    }
    if (Array.isArray(next)) {
      return next.map((item, i) =>
        restore(item, Array.isArray(old) ? old[i] : undefined, depth + 1),
      );
    }
    const previous =
      old !== null && typeof old === 'object' && !Array.isArray(old)
        ? (old as Record<string, unknown>)
        : {};
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(next)) {
      out[key] =
        child === REDACTED && isSensitiveKey(key, rules) && key in previous
          ? previous[key]
          : restore(child, previous[key], depth + 1);
    }
    return out;
  };
  return restore(edited, stored, 0);
}
