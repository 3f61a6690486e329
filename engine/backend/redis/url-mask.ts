/**
 * How every OxMQ process shows a Redis URL (logs, start-up lines, error messages): the userinfo
 * and any query parameter that may carry a credential become `***`. ioredis reads credentials
 * from both places (`redis://user:pw@h` and `redis://h?password=pw`, its query parameters
 * become options), so masking only the URL's password field would leave the second in clear.
 *
 * Works on the text as given, without requiring it to parse as a URL: an invalid setting is
 * shown back masked too. The whole userinfo goes, user name included: `redis://pw@h` puts the
 * password where a user name stands, and the text cannot tell which one it holds.
 */

/** Query parameters that may hold a credential (password, sentinelPassword, username, ...). */
const CREDENTIAL_PARAM = /pass|user|secret|token|auth/i;
const MASK = '***';

export function maskRedisUrl(text: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? '';
  const rest = text.slice(scheme.length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  // The last `@` ends the userinfo (a password may hold an unencoded `@`, as URL parsers allow).
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${MASK}@${authority.slice(at + 1)}`;
  return scheme + host + maskQuery(tail);
}

function maskQuery(tail: string): string {
  const queryStart = tail.indexOf('?');
  if (queryStart === -1) return tail;
  const fragmentStart = tail.indexOf('#', queryStart);
  const queryEnd = fragmentStart === -1 ? tail.length : fragmentStart;
  const parts = tail
    .slice(queryStart + 1, queryEnd)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const rawKey = equals === -1 ? part : part.slice(0, equals);
      return CREDENTIAL_PARAM.test(decodeKey(rawKey)) ? `${rawKey}=${MASK}` : part;
    });
  return `${tail.slice(0, queryStart)}?${parts.join('&')}${tail.slice(queryEnd)}`;
}

/** `pass%77ord` is `password` to the URL parser that reads it, so it is to the mask too. */
function decodeKey(rawKey: string): string {
  try {
    return decodeURIComponent(rawKey.replace(/\+/g, ' '));
  } catch {
    return rawKey;
  }
}
