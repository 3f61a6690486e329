/**
 * engine/admin/error-signature.ts: failure reasons that differ only in the values that vary
 * between failures of one error (numbers, ids, hex, quoted values, addresses) share a signature,
 * and different errors keep different ones.
 */
import { describe, expect, it } from 'vitest';
import { errorSignature, NO_REASON_SIGNATURE, SIGNATURE_LIMITS } from 'oxmq/internals';

const same = (a: string, b: string) => expect(errorSignature(a)).toBe(errorSignature(b));

describe('errorSignature', () => {
  it('masks numbers, keeping the words around them', () => {
    expect(errorSignature('User 1234 not found after 3 attempts (2.5s)')).toBe(
      'User <n> not found after <n> attempts (<n>s)',
    );
    same('order-17 failed', 'order-90210 failed');
  });

  it('masks UUIDs, hex literals, long hex runs and generated ids', () => {
    expect(errorSignature('job 3fa85f64-5717-4562-b3fc-2c963f66afa6 failed')).toBe(
      'job <uuid> failed',
    );
    expect(errorSignature('tx 0xdeadBEEF01 reverted; object 64b7f0c2a1e3d4f5a6b7c8d9')).toBe(
      'tx <hex> reverted; object <hex>',
    );
    expect(errorSignature('no such session job_7f3k92xq')).toBe('no such session <id>');
    // Short words with a digit are words, not ids.
    expect(errorSignature('bad utf8 in sha256')).toBe('bad utf<n> in sha<n>');
    // Hex-looking English words without digits stay.
    expect(errorSignature('deadbeef facade accepted')).toBe('deadbeef facade accepted');
  });

  it('masks quoted values, but not apostrophes', () => {
    expect(errorSignature(`can't find user 'bob' in "users" or \`admins\``)).toBe(
      `can't find user '<str>' in "<str>" or \`<str>\``,
    );
    same(`key "a b c" missing`, `key "x\\"y" missing`);
  });

  it('masks IPv4 and IPv6 addresses, host:port, emails and URLs', () => {
    expect(errorSignature('connect ECONNREFUSED 127.0.0.1:6379')).toBe(
      'connect ECONNREFUSED <ip>:<port>',
    );
    expect(errorSignature('connect ECONNREFUSED [::1]:6380')).toBe(
      'connect ECONNREFUSED [<ip>]:<port>',
    );
    expect(errorSignature('from fe80::1%eth0 via 2001:db8::8a2e:370:7334 or ::ffff:10.0.0.1')).toBe(
      'from <ip> via <ip> or <ip>',
    );
    expect(errorSignature('getaddrinfo ENOTFOUND db-7.internal:5432')).toBe(
      'getaddrinfo ENOTFOUND <host>:<port>',
    );
    expect(errorSignature('mail to ada@example.com via https://mx.example.com/a?b=1 bounced')).toBe(
      'mail to <email> via <url> bounced',
    );
    // Times and scoped names are not addresses.
    expect(errorSignature('at 12:30:45 in Foo::Bar')).toBe('at <n>:<n>:<n> in Foo::Bar');
  });

  it('collapses whitespace and keeps distinct errors apart', () => {
    expect(errorSignature('  Timeout \n\t after   5000ms ')).toBe('Timeout after <n>ms');
    expect(errorSignature('User 1 not found')).not.toBe(errorSignature('Order 1 not found'));
  });

  it('caps the length, and names a missing reason', () => {
    const long = errorSignature(`boom ${'word '.repeat(1_000)}`);
    expect(long).toHaveLength(SIGNATURE_LIMITS.maxChars);
    expect(long.endsWith('…')).toBe(true);
    for (const none of [null, undefined, '', '   ']) {
      expect(errorSignature(none)).toBe(NO_REASON_SIGNATURE);
    }
  });

  it('keeps redaction marks as they are', () => {
    expect(errorSignature('login failed: password=[redacted] for user 5')).toBe(
      'login failed: password=[redacted] for user <n>',
    );
  });
});
