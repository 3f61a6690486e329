/**
 * A session's credential stamp: an HMAC of the user's name and credential, written into the
 * session token at sign-in and compared on every request. Changing a user's password (or
 * removing the user) changes or removes the stamp, so sessions made with the old credential
 * stop working at once, without a session store. Keyed with the session secret, so the token
 * reveals nothing about the hash.
 */
import { createHmac } from 'node:crypto';

export function credentialStamp(secret: string, username: string, credential: string): string {
  return createHmac('sha256', secret)
    .update(`${username}\u0000${credential}`)
    .digest('base64url')
    .slice(0, 22);
}
