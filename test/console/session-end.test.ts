/**
 * Sessions end when they should, not only when their cookie expires: signing out revokes the
 * session (a copied cookie stops working), an admin can sign a user out everywhere, and a
 * session older than its absolute lifetime is refused however recently it was renewed.
 */
import { decode, encode } from 'next-auth/jwt';
import { describe, expect, inject, it } from 'vitest';
import type { ApiError } from '../../lib/api-types';
import { signIn, signOut, type ConsoleClient } from './console-client';
import { openSse } from './sse';
import { ADMIN, NEXTAUTH_SECRET, OPERATOR, VIEWER } from './users';

const baseUrl = inject('consoleUrl');
const SESSION_COOKIE = 'next-auth.session-token';

/** A request carrying exactly `cookie`, as someone who copied it would send it. */
function replay(cookie: string, path = '/api/queues'): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
}

function sessionCookieOf(client: ConsoleClient): string {
  const pair = client
    .cookieHeader()
    .split('; ')
    .find((part) => part.startsWith(`${SESSION_COOKIE}=`));
  if (!pair) throw new Error('no session cookie');
  return pair;
}

describe('ending sessions', () => {
  it('signing out ends the session for every copy of its cookie', async () => {
    const viewer = await signIn(baseUrl, VIEWER);
    const copied = sessionCookieOf(viewer);
    expect((await replay(copied)).status).toBe(200);
    expect((await signOut(viewer)).status).toBe(200);

    const api = await replay(copied);
    expect(api.status).toBe(401);
    expect(((await api.json()) as ApiError).code).toBe('UNAUTHENTICATED');
    const page = await replay(copied, '/');
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toContain('/login');
    // The user's other sessions are theirs to end: signing out one leaves the rest.
    const other = await signIn(baseUrl, VIEWER);
    expect((await other.get('/api/queues')).status).toBe(200);
  });

  it('lets an admin sign a user out of every session, and only an admin', async () => {
    const first = await signIn(baseUrl, OPERATOR);
    const second = await signIn(baseUrl, OPERATOR);
    const refused = await first.post(`/api/users/${OPERATOR.username}/sign-out`);
    expect(refused.status).toBe(403);
    expect((await first.get('/api/queues')).status).toBe(200);

    const admin = await signIn(baseUrl, ADMIN);
    expect((await admin.post(`/api/users/${OPERATOR.username}/sign-out`)).status).toBe(200);
    expect((await first.get('/api/queues')).status).toBe(401);
    expect((await second.get('/api/queues')).status).toBe(401);
    expect((await admin.get('/api/queues')).status).toBe(200);
    // They may sign in again at once.
    const again = await signIn(baseUrl, OPERATOR);
    expect((await again.get('/api/queues')).status).toBe(200);
    expect((await admin.post('/api/users/nobody/sign-out')).status).toBe(404);
  });

  it('refuses a session past its absolute lifetime however fresh its cookie', async () => {
    const viewer = await signIn(baseUrl, VIEWER);
    const token = await decode({
      token: sessionCookieOf(viewer).slice(SESSION_COOKIE.length + 1),
      secret: NEXTAUTH_SECRET,
    });
    expect(typeof token?.signedInAt).toBe('number');
    const reissue = async (signedInAt: number) =>
      `${SESSION_COOKIE}=${await encode({ token: { ...token, signedInAt }, secret: NEXTAUTH_SECRET })}`;
    // The re-encoded token works as it is (so the refusal below is the lifetime's doing)...
    expect((await replay(await reissue(Date.now() - 60_000))).status).toBe(200);
    // ...and not once its sign-in is more than the default 24 hours ago.
    const stale = await reissue(Date.now() - 25 * 60 * 60 * 1000);
    expect((await replay(stale)).status).toBe(401);
    expect((await replay(stale, '/')).status).toBe(307);
  });

  it('ends an open live stream when its session is signed out', async () => {
    const viewer = await signIn(baseUrl, VIEWER);
    const stream = await openSse(viewer, '/api/events');
    expect(stream.status).toBe(200);
    await stream.next((message) => message.event === 'ready');
    expect((await signOut(viewer)).status).toBe(200);
    // The stream re-checks its session at each 15 s heartbeat and ends with it.
    await stream.ended;
  }, 40_000);
});
