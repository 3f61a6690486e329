/**
 * Sign-in throttling against a console of this file's own (the throttle is per process): a
 * username locked after repeated failures, whatever shape the request takes; per-address locks
 * only behind trusted proxies; a flood of concurrent sign-ins turned away instead of queueing
 * bcrypt work without end, while browsers that signed in before keep a lane of their own.
 */
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attemptSignIn, csrfOf } from './sign-in-attempt';
import { startConsole, type ConsoleServer } from './console-server';
import { signIn, signInAs } from './console-client';
import { streamBody } from './stream-body';
import { ADMIN, consoleEnv, OPERATOR, VIEWER } from './users';

let server: ConsoleServer;
const GUESSED = Array.from({ length: 6 }, (_, i) => `guessed-${i}`);
/** A user the bypass tests lock out, then try to reach by other request shapes. */
const BOSS = { username: 'boss', password: 'boss-right-password', role: 'admin' } as const;

beforeAll(async () => {
  // A user whose hash costs 13: unknown usernames are checked at that cost too (the costliest
  // configured), so each check takes long enough for a flood to pile up behind the gate.
  const costly = {
    username: 'cora',
    passwordHash: bcrypt.hashSync('cora-password', 13),
    role: 'viewer',
  };
  // Cheap known users for the per-address test: wrong passwords for them cost little.
  const guessed = GUESSED.map((username) => ({
    username,
    password: 'right-password',
    role: 'viewer',
  }));
  const users = [OPERATOR, VIEWER, BOSS, ...guessed].map((user) => ({
    username: user.username,
    passwordHash: bcrypt.hashSync(user.password, 4),
    role: user.role,
  }));
  server = await startConsole(
    consoleEnv(inject('redisPort'), {
      OXMQ_USERS: JSON.stringify([...users, costly]),
      OXMQ_TRUSTED_PROXY_HOPS: '1',
    }),
  );
});

afterAll(async () => {
  await server.stop();
});

async function expectRefused(response: Response, code: string): Promise<void> {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  const body = (await response.json()) as { code: string; url: string };
  expect(body.code).toBe(code);
  // next-auth's client reads `url` and reports its `error`, which the login form words.
  expect(new URL(body.url).searchParams.get('error')).toBe(
    code === 'TOO_MANY_ATTEMPTS' ? 'TooManyAttempts' : 'SignInBusy',
  );
}

describe('sign-in throttling', () => {
  it('locks a username after five failures, even for the right password, not other users', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = await attemptSignIn(server.url, OPERATOR.username, `wrong-${i}`);
      expect(response.status).toBe(401);
    }
    // The sixth failure locks the name; the lock is checked before any password is.
    expect((await attemptSignIn(server.url, OPERATOR.username, 'wrong-6')).status).toBe(401);
    await expectRefused(
      await attemptSignIn(server.url, OPERATOR.username, OPERATOR.password),
      'TOO_MANY_ATTEMPTS',
    );
    await expectRefused(
      await attemptSignIn(server.url, OPERATOR.username.toUpperCase(), 'x'),
      'TOO_MANY_ATTEMPTS',
    );
    await expect(signIn(server.url, ADMIN)).resolves.toBeDefined();
  });

  it('behind a trusted proxy, locks an address guessing across usernames; others sign in', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': `198.51.100.77, ${address}` });
    // 24 failures over six names, four each: no name is locked, the address is.
    for (let i = 0; i < 24; i += 1) {
      const username = GUESSED[i % GUESSED.length]!;
      const response = await attemptSignIn(server.url, username, `wrong-${i}`, from('203.0.113.5'));
      expect(response.status === 401 || i >= 20).toBe(true);
    }
    await expectRefused(
      await attemptSignIn(server.url, VIEWER.username, VIEWER.password, from('203.0.113.5')),
      'TOO_MANY_ATTEMPTS',
    );
    // The client's own claim (the left entry) changes nothing; the proxy's entry does.
    const other = await attemptSignIn(server.url, VIEWER.username, VIEWER.password, {
      'x-forwarded-for': '203.0.113.5, 192.0.2.10',
    });
    expect(other.status).toBe(200);
  });

  it('answers a flood of concurrent sign-ins with 429 SIGN_IN_BUSY beyond a few in flight', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        attemptSignIn(server.url, `flood-${i}`, 'x', { 'x-forwarded-for': `192.0.2.${100 + i}` }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    const busy = responses.filter((response) => response.status === 429);
    expect(busy.length).toBeGreaterThan(0);
    await expectRefused(busy[0]!, 'SIGN_IN_BUSY');
    // The console stays responsive and the gate empties: a real user signs in afterwards.
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    await expect(signIn(server.url, ADMIN)).resolves.toBeDefined();
  }, 120_000);

  it('refuses an oversized sign-in body while the client is still sending it', async () => {
    const outcome = await streamBody({
      url: new URL('/api/auth/callback/credentials', server.url),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      opening: 'username=ada&password=',
      closing: '',
      cap: 64 * 1024 * 1024,
    });
    expect(outcome.status).toBe(413);
    expect(outcome.sentBeforeAnswer).toBeLessThan(1024 * 1024);
  });
});

describe('the sign-in guard has no way around it', () => {
  const callback = (suffix = '') => `${server.url}/api/auth/callback/credentials${suffix}`;

  /** A sign-in POST of any shape, with a valid CSRF token and cookie. */
  async function post(url: string, contentType: string, body: (csrf: string) => string) {
    const { csrfToken, cookie } = await csrfOf(server.url);
    return fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': contentType, cookie },
      body: body(csrfToken),
    });
  }
  const form = 'application/x-www-form-urlencoded';
  const signedIn = (response: Response) =>
    response.headers.getSetCookie().some((line) => line.startsWith('next-auth.session-token='));

  it('keeps a locked user locked out whatever the path, fields or content type', async () => {
    for (let i = 0; i < 6; i += 1) {
      const response = await attemptSignIn(server.url, BOSS.username, `wrong-${i}`);
      expect(response.status).toBe(401);
    }
    await expectRefused(
      await attemptSignIn(server.url, BOSS.username, BOSS.password),
      'TOO_MANY_ATTEMPTS',
    );
    const right = `username=${BOSS.username}&password=${BOSS.password}&json=true`;
    const shapes = [
      // An extra path segment: next-auth reads only the first two.
      await post(callback('/x'), form, (csrf) => `csrfToken=${csrf}&${right}`),
      // A repeated field: next-auth takes the last value.
      await post(callback(), form, (csrf) => `csrfToken=${csrf}&username=decoy&${right}`),
      // JSON, which next-auth also parses.
      await post(callback(), 'application/json', (csrf) =>
        JSON.stringify({ csrfToken: csrf, ...BOSS, json: 'true', x: '&username=decoy' }),
      ),
      // A content type naming both: next-auth picks JSON by substring.
      await post(callback(), `${form}; application/json`, (csrf) =>
        JSON.stringify({ csrfToken: csrf, username: BOSS.username, password: BOSS.password }),
      ),
    ];
    expect(shapes.map((response) => response.status)).toEqual([404, 400, 415, 415]);
    expect(shapes.some(signedIn)).toBe(false);
    // The throttle runs on the username next-auth checks, normalised: no spelling escapes it.
    for (const spelling of [' BOSS ', 'Boss', '\uff42\uff4f\uff53\uff53']) {
      await expectRefused(
        await attemptSignIn(server.url, spelling, BOSS.password),
        'TOO_MANY_ATTEMPTS',
      );
    }
  });

  it('serves only the auth endpoints the console uses', async () => {
    const { csrfToken, cookie } = await csrfOf(server.url);
    for (const path of ['signin/credentials', '_log', 'session', 'callback/other', 'signout/x']) {
      const response = await fetch(`${server.url}/api/auth/${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': form, cookie },
        body: `csrfToken=${csrfToken}`,
      });
      expect(response.status, path).toBe(404);
    }
    expect((await fetch(callback(), { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${server.url}/api/auth/csrf/x`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/auth/csrf`)).status).toBe(200);
  });

  it('answers a flood of large bodies on unknown auth paths at once, without reading them', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, () =>
        streamBody({
          url: new URL('/api/auth/callback/credentials/x', server.url),
          headers: { 'content-type': form },
          opening: 'username=ada&password=',
          closing: '',
          cap: 400 * 1024 * 1024,
        }),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome.status).toBe(404);
      expect(outcome.sentBeforeAnswer).toBeLessThan(1024 * 1024);
    }
    await expect(signIn(server.url, ADMIN)).resolves.toBeDefined();
  }, 120_000);

  it('keeps a lane for browsers that signed in before while anonymous sign-ins flood the gate', async () => {
    const admin = await signIn(server.url, ADMIN);
    expect(admin.hasCookie('oxmq.device')).toBe(true);
    let flooding = true;
    const floodStatuses: number[] = [];
    const loops = Array.from({ length: 30 }, async (_, loop) => {
      for (let i = 0; flooding; i += 1) {
        const response = await attemptSignIn(server.url, `random-${loop}-${i}`, 'x');
        floodStatuses.push(response.status);
      }
    });
    try {
      // Every one of the admin's sign-ins gets through while the flood runs.
      for (let i = 0; i < 5; i += 1) await signInAs(admin, ADMIN);
      expect(floodStatuses).toContain(429);
    } finally {
      flooding = false;
      await Promise.all(loops);
    }
  }, 180_000);

  it('takes no forged device cookie as a reason to let a locked name through', async () => {
    for (let i = 0; i < 6; i += 1) await attemptSignIn(server.url, 'carl', `wrong-${i}`);
    const forged = `v1.${Buffer.from('carl').toString('base64url')}.${Math.floor(Date.now() / 1000)}.${'A'.repeat(27)}`;
    const { csrfToken, cookie } = await csrfOf(server.url);
    const response = await fetch(callback(), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': form, cookie: `${cookie}; oxmq.device=${forged}` },
      body: new URLSearchParams({ csrfToken, username: 'carl', password: 'x', json: 'true' }),
    });
    await expectRefused(response, 'TOO_MANY_ATTEMPTS');
  });
});
