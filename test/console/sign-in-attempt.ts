/** One raw sign-in attempt through next-auth's credentials flow, for tests that expect refusals. */

/** A fresh CSRF token and the cookie that goes with it. */
export async function csrfOf(baseUrl: string): Promise<{ csrfToken: string; cookie: string }> {
  const csrfResponse = await fetch(`${baseUrl}/api/auth/csrf`);
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
  const cookie = csrfResponse.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  return { csrfToken, cookie };
}

export async function attemptSignIn(
  baseUrl: string,
  username: string,
  password: string,
  headers: Record<string, string> = {},
  fields: Record<string, string> = {},
): Promise<Response> {
  const { csrfToken, cookie } = await csrfOf(baseUrl);
  return fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams({ csrfToken, username, password, json: 'true', ...fields }),
  });
}
