/**
 * The signature of a failure reason: its text with the parts that vary from one failure of the
 * same error to the next (numbers, ids, hex, quoted values, addresses) masked, so that five
 * thousand "user 1234 not found" failures read as one error. The console groups failed jobs by
 * it (redis/error-groups.ts) and bulk operations act on one group (error-group-filter.ts).
 *
 * A signature is taken of the redacted reason (redaction.ts), never of the stored one: a group's
 * count and signature must say nothing about a redacted value.
 *
 * Every step is a linear pass over a bounded prefix of the reason (SIGNATURE_LIMITS.inputChars),
 * and quoted values are matched up to a bounded length, so one huge reason costs little.
 */
import { isIPv6 } from 'node:net';

export const SIGNATURE_LIMITS = {
  /** Characters of a reason looked at; two reasons that differ only past this are one group. */
  inputChars: 4_096,
  /** Characters of a signature kept (an ellipsis marks the cut). */
  maxChars: 240,
  /** Longest quoted value masked; a longer one is left to the other masks. */
  maxQuotedChars: 256,
} as const;

/** The signature of a job that failed without a reason. */
export const NO_REASON_SIGNATURE = '(no reason)';

const Q = SIGNATURE_LIMITS.maxQuotedChars;

// Order matters: whole structures (URLs, emails, quoted values, UUIDs, addresses) go before the
// number mask, which would otherwise cut them into pieces that no longer read as what they were.
const URL = /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s'"<>]+/gi;
const EMAIL = /\b[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+\b/gi;
// A quote that opens after a word character is an apostrophe ("can't"), not a value.
const SINGLE_QUOTED = new RegExp(`(?<!\\w)'(?:[^'\\\\\\n]|\\\\.){0,${Q}}'`, 'g');
const DOUBLE_QUOTED = new RegExp(`"(?:[^"\\\\\\n]|\\\\.){0,${Q}}"`, 'g');
const BACKQUOTED = new RegExp(`\`[^\`\\n]{0,${Q}}\``, 'g');
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
// Candidates only: each is checked with node's own IPv6 parser, so "12:30:45" or "Foo::Bar"
// stay text (times are then masked as numbers).
const IPV6_CANDIDATE =
  /(?<![\w:.])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?:%\w+)?(?![\w:])/gi;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;
// host:port with a dotted host name or localhost; an address already masked keeps its <ip>.
const HOST_PORT = /\b(?:localhost|[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+):\d{1,5}\b/gi;
const IP_PORT = /<ip>\]?:\d{1,5}\b/g;
const HEX_LITERAL = /\b0x[0-9a-f]+\b/gi;
// Long runs of hex with both letters and digits: hashes, object ids, trace ids.
// (The lookaheads only ever scan forward over one class, so they stay linear.)
const HEX_RUN = /\b(?=[a-f]*\d)(?=\d*[a-f])[0-9a-f]{8,}\b/gi;
// Words of letters and at least two digits, eight characters or more: generated ids such as
// "job_7f3k92xq" or "usr8c2kd9"; short words with a digit ("utf8", "sha256") are not ids.
const MIXED_ID = /\b(?=(?:[a-z_]*\d){2})(?=[\d_]*[a-z])\w{8,}\b/gi;
const NUMBER = /\d+(?:\.\d+)?/g;
const SPACE = /\s+/g;

/** The signature of a (redacted) failure reason; see the file comment. */
export function errorSignature(reason: string | null | undefined): string {
  if (reason === null || reason === undefined || reason.trim() === '') return NO_REASON_SIGNATURE;
  const text = reason
    .slice(0, SIGNATURE_LIMITS.inputChars)
    .replace(URL, '<url>')
    .replace(EMAIL, '<email>')
    .replace(DOUBLE_QUOTED, '"<str>"')
    .replace(SINGLE_QUOTED, "'<str>'")
    .replace(BACKQUOTED, '`<str>`')
    .replace(UUID, '<uuid>')
    .replace(IPV6_CANDIDATE, (candidate) => (isIPv6(candidate) ? '<ip>' : candidate))
    .replace(IPV4, '<ip>')
    .replace(IP_PORT, (match) => (match.includes(']') ? '<ip>]:<port>' : '<ip>:<port>'))
    .replace(HOST_PORT, '<host>:<port>')
    .replace(HEX_LITERAL, '<hex>')
    .replace(HEX_RUN, '<hex>')
    .replace(MIXED_ID, '<id>')
    .replace(NUMBER, '<n>')
    .replace(SPACE, ' ')
    .trim();
  if (text === '') return NO_REASON_SIGNATURE;
  return text.length > SIGNATURE_LIMITS.maxChars
    ? `${text.slice(0, SIGNATURE_LIMITS.maxChars - 1)}…`
    : text;
}
