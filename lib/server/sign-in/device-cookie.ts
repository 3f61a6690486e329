/**
 * Device cookies: after a successful sign-in the browser gets a signed cookie naming the user
 * (HMAC under a key derived from NEXTAUTH_SECRET). A later sign-in of that same user from that
 * browser is "trusted": it is throttled per device instead of per username and has a bcrypt
 * lane of its own. So a guesser, who has no such cookie, can neither lock a real user out by
 * failing on their name nor crowd them out of the sign-in gate with a flood of made-up names.
 * The cookie grants nothing else: the password is still checked, and it is sent only to
 * /api/auth. This is the "device cookie" defence OWASP describes for online guessing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const DAY_S = 24 * 60 * 60;
/** How long a browser stays trusted for a user after its last successful sign-in. */
export const DEVICE_COOKIE_MAX_AGE_S = 30 * DAY_S;
const VERSION = 'v1';

export function deviceCookieName(secure: boolean): string {
  // `__Secure-` makes browsers refuse the cookie unless it was set over https with Secure.
  return secure ? '__Secure-oxmq.device' : 'oxmq.device';
}

function mac(secret: string, userKey: string, issuedAtS: number): string {
  return createHmac('sha256', secret)
    .update(`oxmq device cookie\u0000${VERSION}\u0000${userKey}\u0000${issuedAtS}`)
    .digest('base64url')
    .slice(0, 27);
}

export function deviceCookieValue(secret: string, userKey: string, nowMs = Date.now()): string {
  const issuedAtS = Math.floor(nowMs / 1000);
  const user = Buffer.from(userKey, 'utf8').toString('base64url');
  return `${VERSION}.${user}.${issuedAtS}.${mac(secret, userKey, issuedAtS)}`;
}

export interface TrustedDevice {
  /** The username key the cookie vouches for. */
  userKey: string;
  /** A stable id of this cookie, for per-device throttling. */
  id: string;
}

/** The device a cookie value proves, or null when it is missing, forged or expired. */
export function verifyDeviceCookie(
  secret: string,
  value: string | undefined,
  nowMs = Date.now(),
): TrustedDevice | null {
  if (value === undefined || value.length > 512) return null;
  const [version, user, issued, signature] = value.split('.');
  if (version !== VERSION || !user || !issued || !signature || !/^\d{1,12}$/.test(issued)) {
    return null;
  }
  const issuedAtS = Number(issued);
  const ageS = nowMs / 1000 - issuedAtS;
  if (ageS < -60 || ageS > DEVICE_COOKIE_MAX_AGE_S) return null;
  const userKey = Buffer.from(user, 'base64url').toString('utf8');
  const expected = Buffer.from(mac(secret, userKey, issuedAtS));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { userKey, id: signature };
}

/** The Set-Cookie line that trusts this browser for `userKey`. */
export function deviceSetCookie(secret: string, userKey: string, secure: boolean): string {
  const attributes = [
    `${deviceCookieName(secure)}=${deviceCookieValue(secret, userKey)}`,
    'Path=/api/auth',
    `Max-Age=${DEVICE_COOKIE_MAX_AGE_S}`,
    'HttpOnly',
    'SameSite=Strict',
  ];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}
