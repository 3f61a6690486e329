/**
 * An HTTP client for the console API that signs in through next-auth's credentials flow (CSRF
 * token, then POST /api/auth/callback/credentials) and keeps the cookies, like a browser.
 */
export interface ConsoleClient {
  readonly baseUrl: string;
  get(path: string): Promise<Response>;
  /** A same-origin JSON POST (Origin set to the console's), unless `headers` override it. */
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  raw(path: string, init: RequestInit): Promise<Response>;
  /** The Cookie header this client sends (for a request made with another HTTP client). */
  cookieHeader(): string;
  hasCookie(name: string): boolean;
}

class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

export function anonymousClient(baseUrl: string): ConsoleClient {
  return makeClient(baseUrl, new CookieJar());
}

function makeClient(baseUrl: string, jar: CookieJar): ConsoleClient {
  const raw = async (path: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    if (!headers.has('cookie') && jar.header() !== '') headers.set('cookie', jar.header());
    const response = await fetch(`${baseUrl}${path}`, { redirect: 'manual', ...init, headers });
    jar.take(response);
    return response;
  };
  return {
    baseUrl,
    raw,
    cookieHeader: () => jar.header(),
    hasCookie: (name) => jar.has(name),
    get: (path) => raw(path, { method: 'GET' }),
    post: (path, body = {}, headers = {}) =>
      raw(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: baseUrl, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** Signs in; throws when the credentials are refused. */
export async function signIn(
  baseUrl: string,
  user: { username: string; password: string },
): Promise<ConsoleClient> {
  return signInAs(anonymousClient(baseUrl), user);
}

/**
 * Signs `client` in (again), keeping its cookies as a browser does: a client that signed in
 * before sends its device cookie along. Throws when the credentials are refused.
 */
export async function signInAs(
  client: ConsoleClient,
  user: { username: string; password: string },
): Promise<ConsoleClient> {
  const csrf = (await (await client.get('/api/auth/csrf')).json()) as { csrfToken: string };
  const response = await client.raw('/api/auth/callback/credentials', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrfToken: csrf.csrfToken,
      username: user.username,
      password: user.password,
      callbackUrl: client.baseUrl,
      json: 'true',
    }),
  });
  if (response.status !== 200 || !client.hasCookie('next-auth.session-token')) {
    throw new Error(`sign-in as ${user.username} refused (${response.status})`);
  }
  return client;
}

/** Signs `client` out through next-auth's sign-out endpoint, as the console's Sign out does. */
export async function signOut(client: ConsoleClient): Promise<Response> {
  const csrf = (await (await client.get('/api/auth/csrf')).json()) as { csrfToken: string };
  return client.raw('/api/auth/signout', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrfToken: csrf.csrfToken,
      callbackUrl: client.baseUrl,
      json: 'true',
    }),
  });
}
