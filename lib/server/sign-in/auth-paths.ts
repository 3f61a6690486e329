/**
 * The next-auth endpoints the console uses, exactly. next-auth itself reads only the first two
 * path segments (`callback/credentials/anything` is the credentials callback to it), so any
 * other shape is refused here with 404 before next-auth runs: a guard that matches one spelling
 * of an endpoint while next-auth answers several is no guard.
 *
 * POST bodies: next-auth parses both JSON and form bodies, and for a repeated field the last
 * value wins. The console's own client (next-auth/react) sends a form, once per field, so that
 * is the one shape accepted: other content types, repeated fields and fields the endpoint does
 * not use are refused with 400, and next-auth is handed a form rebuilt from the fields checked.
 */

/** `GET /api/auth/<path>`: what next-auth/react and the login page read. */
const GET_PATHS = new Set(['session', 'csrf', 'providers', 'signin', 'signout', 'error']);

/** `POST /api/auth/<path>` and the form fields each takes. */
const POST_FIELDS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  [
    'callback/credentials',
    new Set(['csrfToken', 'username', 'password', 'callbackUrl', 'json', 'redirect']),
  ],
  ['signout', new Set(['csrfToken', 'callbackUrl', 'json'])],
]);

export const CREDENTIALS_CALLBACK = 'callback/credentials';

/** Longest value of any one field; a username, a password, a CSRF token and a URL fit easily. */
const MAX_FIELD_CHARS = 2_048;

export function isAllowedGetPath(segments: readonly string[]): boolean {
  return GET_PATHS.has(segments.join('/'));
}

/** The POST endpoint these segments name, or null when the console does not serve it. */
export function allowedPostPath(segments: readonly string[]): string | null {
  const path = segments.join('/');
  return POST_FIELDS.has(path) ? path : null;
}

export class AuthFormError extends Error {
  override readonly name = 'AuthFormError';
}

/**
 * A form body for `path`, each field once: throws AuthFormError on a repeated or unknown field
 * or an overlong value. `URLSearchParams` decodes the same way next-auth's parser does, so the
 * values checked here are the values next-auth would read.
 */
export function parseAuthForm(path: string, body: string): Map<string, string> {
  const allowed = POST_FIELDS.get(path);
  if (!allowed) throw new AuthFormError(`No such sign-in endpoint: ${path}`);
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(body)) {
    if (!allowed.has(key)) throw new AuthFormError(`Unexpected field: ${key.slice(0, 64)}`);
    if (fields.has(key)) throw new AuthFormError(`Repeated field: ${key}`);
    if (value.length > MAX_FIELD_CHARS) throw new AuthFormError(`Field too long: ${key}`);
    fields.set(key, value);
  }
  return fields;
}

/**
 * The one content type accepted for auth POSTs, with at most a UTF-8 charset. Strict on purpose:
 * next-auth picks its parser by substring (`includes("application/json")`), so a header naming
 * both types must not pass. The request next-auth sees carries a content type set here anyway.
 */
export function isFormContentType(contentType: string | null): boolean {
  return (
    contentType !== null &&
    /^application\/x-www-form-urlencoded(\s*;\s*charset="?utf-8"?)?$/i.test(contentType.trim())
  );
}
