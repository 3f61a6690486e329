/**
 * URL credentials in free text: `redis://:pw@host`, `https://user:pw@host` lose the password,
 * `https://token@host` the token. A password is often pasted unencoded, so it may hold `/`, `#`,
 * `?` and `@` (`redis://:p@ss/w#rd@cache:6379`): the userinfo runs to the last `@` that a host
 * follows (a name or `[ipv6]`, an optional port, then the end of the authority), not to the
 * first delimiter. `https://host:8080/a@b` keeps its path: a `:` followed by digits and the end of
 * the authority is a port, not a password.
 *
 * Linear: the search for the closing `@` looks at most maxUrlUserinfoChars characters past a
 * scheme and stops at the next one, and each host test reads a bounded number of characters.
 */
import { REDACTED, REDACTION_LIMITS } from './rules';

const SCHEME = /\b[a-z][a-z0-9+.-]{0,30}:\/\//gi;
/** A user name: up to a `:` (a password follows) or an `@` (the user is the secret). */
const USER = /[^\s/?#@:"'<>]*/y;
/** The digits of a port, then the end of the authority. */
const PORT = /\d*(?=[/?#\s"'<>]|$)/y;
/** What follows the `@` that ends a userinfo: a host, an optional port, the authority's end. */
const HOST =
  /(?:\[[0-9a-f:.]{2,45}\]|[\w-]{1,63}(?:\.[\w-]{1,63}){0,20})(?::\d{1,5})?(?=[/?#\s"'<>,;)\]}]|$)/iy;
/** Characters a URL never holds unencoded in running text: the userinfo stops there. */
const URL_END = /[\s"'<>]/;

function matchesAt(pattern: RegExp, text: string, index: number): RegExpExecArray | null {
  pattern.lastIndex = index;
  return pattern.exec(text);
}

/**
 * The index of the `@` that ends a password starting at `from`, or -1: the last `@` a host
 * follows. `redis://:p@ss/w#rd@cache` must not stop at `@ss/`, which reads as a host too; the
 * price is that an `@` later in the URL (`https://u:pw@h/p?to=a@b.example`) hides the host and
 * path before it, which over-redacts rather than leaks.
 */
function passwordEnd(text: string, from: number): number {
  const stop = Math.min(text.length, from + REDACTION_LIMITS.maxUrlUserinfoChars);
  let lastBeforeHost = -1;
  let firstInAuthority = -1;
  let inAuthority = true;
  for (let i = from; i < stop; i++) {
    const c = text[i]!;
    if (URL_END.test(c)) break;
    // The next URL's scheme: a password never runs into it, and no character is looked at
    // for two schemes (`a://:a://:a://:...` stays linear).
    if (c === ':' && text[i + 1] === '/' && text[i + 2] === '/') break;
    if (c === '/' || c === '?' || c === '#') inAuthority = false;
    if (c !== '@') continue;
    if (matchesAt(HOST, text, i + 1)) lastBeforeHost = i;
    else if (inAuthority && firstInAuthority === -1) firstInAuthority = i;
  }
  // No host after any `@`: the plain reading (userinfo ends at the authority's first `@`).
  return lastBeforeHost !== -1 ? lastBeforeHost : firstInAuthority;
}

export function redactUrlCredentials(text: string): string {
  const schemes = new RegExp(SCHEME.source, SCHEME.flags);
  const user = new RegExp(USER.source, USER.flags);
  const port = new RegExp(PORT.source, PORT.flags);
  let out = '';
  let copied = 0;
  for (let match = schemes.exec(text); match !== null; match = schemes.exec(text)) {
    const userStart = match.index + match[0].length;
    const userEnd = userStart + matchesAt(user, text, userStart)![0].length;
    const next = text[userEnd];
    if (next === '@') {
      out += text.slice(copied, userStart) + REDACTED;
      copied = userEnd;
      schemes.lastIndex = userEnd + 1;
      continue;
    }
    if (next !== ':') continue;
    // `host:port`: no password here (an empty user with a colon always starts a password).
    if (userEnd > userStart && matchesAt(port, text, userEnd + 1)) continue;
    const at = passwordEnd(text, userEnd + 1);
    if (at === -1) continue;
    out += text.slice(copied, userEnd + 1) + REDACTED;
    copied = at;
    schemes.lastIndex = at + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
