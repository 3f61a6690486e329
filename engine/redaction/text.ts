/**
 * The free-text pass (failure reasons, stack traces, log lines, JSON too large to parse):
 * private key blocks lose their body, URL credentials their secret (url-credentials.ts), and a
 * `key=value`, `key: value`, `"key":"value"` or `key={...}` pair with a sensitive key its value.
 *
 * Where a value ends:
 * - quoted: at its closing quote (escaped as the opening one was), or unclosed at the line's end;
 * - `{` or `[`: at the bracket that balances it (quoted strings skipped), or unclosed at the end
 *   of the text: the whole structure is hidden, as the structured pass hides an object under a
 *   sensitive key;
 * - `Cookie` and `Authorization` values: at the line's end (`Cookie: a=1; b=2`);
 * - any other value: at a space or the end of the text. A run of `, ; & ) } ] " ' \` inside it
 *   ends it only when a space, the end or another `key=` / `key:` follows the run
 *   (`a=1&token=x&b=2`, `{password=x}, ok`): elsewhere the run is part of the secret, so
 *   `password=ab,cd` and `password=ab;cd` are hidden whole.
 *
 * Every step moves forward through the text and looks ahead a bounded distance, so the pass is
 * linear in the size of its input.
 */
import {
  DEFAULT_REDACTION,
  isSensitiveKey,
  normalizeKey,
  REDACTED,
  REDACTION_LIMITS,
  type RedactionRules,
} from './rules';
import { redactUrlCredentials } from './url-credentials';

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

/** What follows a delimiter run when the next pair starts there (`&user=`, `,\"next\":`). */
const NEXT_KEY = new RegExp(
  `[\\w.-]{1,${REDACTION_LIMITS.maxTextKeyChars}}(?:\\\\{0,16}["'])?[ \\t]*[:=]`,
  'y',
);

/** A quoted value's opening quote, with the backslashes that escape it. */
const OPENING_QUOTE = /(\\{0,16})(["'])/y;

/** An auth scheme kept before the token it introduces. */
const AUTH_SCHEME = /(?:bearer|basic|digest|token)[ \t]+(?=\S)/iy;

/** Header-like keys whose value runs to the end of the line (`Cookie: a=1; b=2`). */
const LINE_VALUE_NAMES = ['cookie', 'authorization'];

/** `-----BEGIN RSA PRIVATE KEY-----`, `-----BEGIN OPENSSH PRIVATE KEY-----`, PGP key blocks. */
const PRIVATE_KEY_BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = '-----END ';

const DELIMITERS = new Set([',', ';', '&', ')', '}', ']', '"', "'", '\\']);
const SPACE = /\s/;

/** Free text: see the file comment. */
export function redactText(text: string, rules: RedactionRules = DEFAULT_REDACTION): string {
  return redactPairs(redactUrlCredentials(redactPrivateKeys(text)), rules);
}

/** A private key block keeps its BEGIN and END lines; an unclosed one hides the rest. */
function redactPrivateKeys(text: string): string {
  const begins = new RegExp(PRIVATE_KEY_BEGIN.source, 'g');
  let out = '';
  let copied = 0;
  for (let match = begins.exec(text); match !== null; match = begins.exec(text)) {
    const bodyStart = match.index + match[0].length;
    const end = text.indexOf(PEM_END, bodyStart);
    out += text.slice(copied, bodyStart) + REDACTED;
    copied = end === -1 ? text.length : end;
    if (end === -1) break;
    begins.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function matchesAt(pattern: RegExp, text: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(text);
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

/** The end of the `{...}` or `[...]` opening at `start`: past its balancing bracket. */
function structureEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++; // an escaped character is never a quote or bracket of the structure
    } else if (inString) {
      if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if ((c === '}' || c === ']') && --depth === 0) {
      return i + 1;
    }
  }
  return text.length;
}

/** The end of a bare value: see the file comment. */
function bareValueEnd(text: string, start: number, nextKey: RegExp): number {
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (SPACE.test(c)) return i;
    if (!DELIMITERS.has(c)) {
      i++;
      continue;
    }
    let after = i;
    while (after < text.length && DELIMITERS.has(text[after]!)) after++;
    if (after === text.length || SPACE.test(text[after]!) || matchesAt(nextKey, text, after)) {
      return i;
    }
    i = after;
  }
  return text.length;
}

interface Patterns {
  readonly opening: RegExp;
  readonly scheme: RegExp;
  readonly nextKey: RegExp;
}

/** The replacement of the value at `start` after a sensitive key, and where the value ends. */
function redactedValueAt(
  text: string,
  start: number,
  key: string,
  patterns: Patterns,
): { replacement: string; end: number } | undefined {
  const quoted = matchesAt(patterns.opening, text, start);
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
  const first = text[start];
  if (first === '{' || first === '[') {
    return { replacement: REDACTED, end: structureEnd(text, start) };
  }
  if (LINE_VALUE_NAMES.some((name) => normalizeKey(key).includes(name))) {
    const lineEnd = text.indexOf('\n', start);
    let end = lineEnd === -1 ? text.length : lineEnd;
    // Keep a trailing carriage return so a CRLF text keeps its line ends.
    if (text[end - 1] === '\r') end -= 1;
    return end > start ? { replacement: REDACTED, end } : undefined;
  }
  const scheme = matchesAt(patterns.scheme, text, start)?.[0] ?? '';
  const end = bareValueEnd(text, start + scheme.length, patterns.nextKey);
  return end > start + scheme.length ? { replacement: `${scheme}${REDACTED}`, end } : undefined;
}

function redactPairs(text: string, rules: RedactionRules): string {
  const keys = new RegExp(KEY_AND_SEPARATOR.source, 'g');
  const patterns: Patterns = {
    opening: new RegExp(OPENING_QUOTE.source, 'y'),
    scheme: new RegExp(AUTH_SCHEME.source, AUTH_SCHEME.flags),
    nextKey: new RegExp(NEXT_KEY.source, 'y'),
  };
  let out = '';
  let copied = 0;
  for (let match = keys.exec(text); match !== null; match = keys.exec(text)) {
    const key = match[2]!;
    if (!isSensitiveKey(key, rules)) continue;
    const valueStart = match.index + match[0].length;
    const value = redactedValueAt(text, valueStart, key, patterns);
    if (!value) continue;
    out += text.slice(copied, valueStart) + value.replacement;
    copied = value.end;
    keys.lastIndex = value.end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
