/** Device cookies (lib/server/sign-in/device-cookie.ts): signed, per user, expiring. */
import { describe, expect, it } from 'vitest';
import {
  DEVICE_COOKIE_MAX_AGE_S,
  deviceCookieValue,
  verifyDeviceCookie,
} from '../../lib/server/sign-in/device-cookie';

const SECRET = 'a-test-secret-of-enough-length';
const NOW = 1_800_000_000_000;

describe('device cookies', () => {
  it('vouch for the user they were issued to', () => {
    const value = deviceCookieValue(SECRET, 'ada', NOW);
    expect(verifyDeviceCookie(SECRET, value, NOW + 1_000)?.userKey).toBe('ada');
  });

  it('are refused when forged, re-addressed, signed with another secret or expired', () => {
    const value = deviceCookieValue(SECRET, 'ada', NOW);
    const [version, , issued, mac] = value.split('.');
    const boss = Buffer.from('boss').toString('base64url');
    expect(verifyDeviceCookie(SECRET, `${version}.${boss}.${issued}.${mac}`, NOW)).toBeNull();
    expect(verifyDeviceCookie('another-secret-of-length', value, NOW)).toBeNull();
    expect(
      verifyDeviceCookie(SECRET, value, NOW + (DEVICE_COOKIE_MAX_AGE_S + 1) * 1000),
    ).toBeNull();
    expect(verifyDeviceCookie(SECRET, 'v1.x.y.z', NOW)).toBeNull();
    expect(verifyDeviceCookie(SECRET, undefined, NOW)).toBeNull();
  });
});
