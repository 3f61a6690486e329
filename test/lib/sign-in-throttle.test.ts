/** The pieces behind sign-in throttling (lib/server/sign-in/): backoff, the gate, addresses. */
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../lib/server/sign-in/client-address';
import { dummyHashFor } from '../../lib/server/sign-in/dummy-hash';
import { FailureBackoff } from '../../lib/server/sign-in/failure-backoff';
import { SignInBusyError, SignInGate } from '../../lib/server/sign-in/sign-in-gate';
import { SignInGuard } from '../../lib/server/sign-in/sign-in-guard';
import { usernameKey } from '../../lib/server/sign-in/username-key';

const T0 = 1_000_000;

describe('FailureBackoff', () => {
  const options = { freeFailures: 3, firstLockMs: 1_000, maxLockMs: 60_000 };

  it('allows the free failures, then locks for twice as long after each further one', () => {
    const backoff = new FailureBackoff(options);
    for (let i = 0; i < 3; i += 1) {
      expect(backoff.retryAfterMs('ada', T0)).toBe(0);
      backoff.recordFailure('ada', T0);
    }
    expect(backoff.retryAfterMs('ada', T0)).toBe(0);
    backoff.recordFailure('ada', T0);
    expect(backoff.retryAfterMs('ada', T0)).toBe(1_000);
    backoff.recordFailure('ada', T0 + 1_000);
    expect(backoff.retryAfterMs('ada', T0 + 1_000)).toBe(2_000);
    backoff.recordFailure('ada', T0 + 3_000);
    expect(backoff.retryAfterMs('ada', T0 + 3_000)).toBe(4_000);
    expect(backoff.retryAfterMs('bob', T0 + 3_000)).toBe(0);
  });

  it('never locks longer than the ceiling', () => {
    const backoff = new FailureBackoff(options);
    for (let i = 0; i < 40; i += 1) backoff.recordFailure('ada', T0);
    expect(backoff.retryAfterMs('ada', T0)).toBe(60_000);
  });

  it('forgets a key after a success, or after a quiet ceiling', () => {
    const backoff = new FailureBackoff(options);
    for (let i = 0; i < 5; i += 1) backoff.recordFailure('ada', T0);
    backoff.recordSuccess('ada');
    expect(backoff.retryAfterMs('ada', T0)).toBe(0);
    for (let i = 0; i < 5; i += 1) backoff.recordFailure('bob', T0);
    backoff.recordFailure('bob', T0 + 60_001 + 4_000);
    // The earlier failures are forgotten: this is the first of a new run.
    expect(backoff.retryAfterMs('bob', T0 + 64_001)).toBe(0);
  });
});

describe('SignInGate', () => {
  it('runs a few checks at once, queues a few more and turns the rest away', async () => {
    const gate = new SignInGate(2, 1);
    const releases: (() => void)[] = [];
    let started = 0;
    const check = () =>
      gate.run(
        () =>
          new Promise<number>((resolve) => {
            started += 1;
            releases.push(() => resolve(started));
          }),
      );
    const first = check();
    const second = check();
    const queued = check();
    await expect(check()).rejects.toBeInstanceOf(SignInBusyError);
    await Promise.resolve();
    expect(started).toBe(2);
    releases.shift()!();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(3);
    for (const release of releases.splice(0)) release();
    await Promise.all([second, queued]);
    // Everything released: the gate admits again.
    await expect(gate.run(async () => 'ok')).resolves.toBe('ok');
  });

  it('frees the slot when a check throws', async () => {
    const gate = new SignInGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(async () => 'ok')).resolves.toBe('ok');
  });
});

describe('SignInGuard', () => {
  const attempt = (
    username: string,
    address: string | null = null,
    device: string | null = null,
  ) => ({
    userKey: usernameKey(username),
    address,
    device,
  });

  it('locks a username after five failures, whatever its case or spacing, and not other usernames', () => {
    const guard = new SignInGuard();
    for (let i = 0; i < 5; i += 1) guard.recordFailure(attempt('Ada'), T0);
    expect(guard.retryAfterSeconds(attempt('ada'), T0)).toBe(0);
    guard.recordFailure(attempt(' ada '), T0);
    expect(guard.retryAfterSeconds(attempt('ADA'), T0)).toBe(1);
    expect(guard.retryAfterSeconds(attempt('\uff41\uff44\uff41'), T0)).toBe(1);
    expect(guard.retryAfterSeconds(attempt('bob'), T0)).toBe(0);
  });

  it('locks an address that fails across many usernames; a success does not clear it', () => {
    const guard = new SignInGuard();
    for (let i = 0; i < 21; i += 1) guard.recordFailure(attempt(`user-${i}`, '203.0.113.9'), T0);
    guard.recordSuccess(attempt('ada', '203.0.113.9'));
    expect(guard.retryAfterSeconds(attempt('ada', '203.0.113.9'), T0)).toBe(1);
    expect(guard.retryAfterSeconds(attempt('ada', '198.51.100.1'), T0)).toBe(0);
  });

  it('lets a trusted device in while its username is locked, and backs the device off on its own', () => {
    const guard = new SignInGuard();
    for (let i = 0; i < 8; i += 1) guard.recordFailure(attempt('ada'), T0);
    expect(guard.retryAfterSeconds(attempt('ada'), T0)).toBeGreaterThan(0);
    expect(guard.retryAfterSeconds(attempt('ada', null, 'device-1'), T0)).toBe(0);
    for (let i = 0; i < 6; i += 1) guard.recordFailure(attempt('ada', null, 'device-1'), T0);
    expect(guard.retryAfterSeconds(attempt('ada', null, 'device-1'), T0)).toBe(1);
    expect(guard.retryAfterSeconds(attempt('ada', null, 'device-2'), T0)).toBe(0);
  });

  it('gives trusted devices a gate of their own', () => {
    const guard = new SignInGuard();
    expect(guard.gateFor(attempt('ada', null, 'device-1'))).not.toBe(guard.gateFor(attempt('ada')));
  });
});

describe('clientAddress', () => {
  it('ignores X-Forwarded-For unless proxies are trusted', () => {
    expect(clientAddress('203.0.113.9', 0)).toBeNull();
  });

  it('takes the entry the trusted proxies appended, not what the client claimed', () => {
    expect(clientAddress('1.1.1.1, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(clientAddress('1.1.1.1, 203.0.113.9, 10.0.0.2', 2)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', 2)).toBeNull();
    expect(clientAddress(null, 1)).toBeNull();
    expect(clientAddress('2001:DB8::1', 1)).toBe('2001:db8::1');
  });
});

describe('dummyHashFor', () => {
  it('costs as much as the costliest configured hash', () => {
    const cheap = bcrypt.hashSync('a', 4);
    const dear = '$2b$12$' + 'x'.repeat(53);
    expect(bcrypt.getRounds(dummyHashFor([cheap, dear]))).toBe(12);
    expect(bcrypt.getRounds(dummyHashFor([cheap]))).toBe(10);
  });
});
