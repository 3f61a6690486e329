/**
 * Sign-in throttling against a console of this file's own (the throttle is per process): a
 * username locked after repeated failures, per-address locks only behind trusted proxies, and a
 * flood of concurrent sign-ins turned away instead of queueing bcrypt work without end.
 */
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attemptSignIn } from './sign-in-attempt';
import { startConsole, type ConsoleServer } from './console-server';
import { signIn } from './console-client';
import { ADMIN, consoleEnv, OPERATOR, VIEWER } from './users';

let server: ConsoleServer;
const GUESSED = Array.from({ length: 6 }, (_, i) => `guessed-${i}`);

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
  const users = [OPERATOR, VIEWER, ...guessed].map((user) => ({
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

  it('refuses an oversized sign-in body without reading it all', async () => {
    const response = await fetch(`${server.url}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=ada&password=${'x'.repeat(64 * 1024)}`,
    });
    expect(response.status).toBe(413);
  });
});
