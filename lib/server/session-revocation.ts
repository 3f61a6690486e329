/**
 * Ending sessions before their cookie expires: at their absolute lifetime, or when revoked. Sessions are stateless JWT cookies, so a copied
 * cookie would otherwise stay valid after its owner signed out. Two records in Redis, read
 * together on every request (one MGET; both keys share a hash tag, so this works on Cluster):
 *
 * - `oxmq:{session}:revoked:<sid>`: one session signed out. Written on sign-out, it expires
 *   when the session could no longer be used anyway (its absolute lifetime).
 * - `oxmq:{session}:epoch:<username>`: "sign out everywhere": every session of the user that
 *   signed in at or before this time is over. Expires after one absolute lifetime too.
 *
 * A session known to be revoked is remembered in memory (it can never come back), so a stolen
 * cookie replayed in a loop costs one Redis read. Anything else is read each time: a revocation
 * written by another console process must take effect on this one at once.
 */
import { RecentMap } from './recent-map';

const SESSION_KEY_PREFIX = 'oxmq:{session}:';

/** What the store needs of a Redis client (ioredis `Redis` and `Cluster` both fit). */
export interface RevocationClient {
  mget(...keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
}

export interface SessionRef {
  username: string;
  /** The session's random id, set at sign-in. */
  sid: string;
  /** When the user signed in (ms); the session's absolute lifetime counts from here. */
  signedInAt: number;
}

export class SessionRevocations {
  private readonly knownRevoked = new RecentMap<string, true>(10_000);

  constructor(
    private readonly client: () => RevocationClient,
    private readonly absoluteLifetimeMs: number,
  ) {}

  /**
   * True when the session is over: past its absolute lifetime (no Redis read needed), or
   * signed out, by itself or everywhere.
   */
  async hasEnded(session: SessionRef, now = Date.now()): Promise<boolean> {
    if (now - session.signedInAt > this.absoluteLifetimeMs) return true;
    if (this.knownRevoked.get(session.sid)) return true;
    const [revoked, epoch] = await this.client().mget(
      revokedKey(session.sid),
      epochKey(session.username),
    );
    const isRevoked = revoked !== null || (epoch !== null && Number(epoch) >= session.signedInAt);
    if (isRevoked) this.knownRevoked.set(session.sid, true);
    return isRevoked;
  }

  /** Ends one session (sign-out). */
  async revoke(session: SessionRef, now = Date.now()): Promise<void> {
    this.knownRevoked.set(session.sid, true);
    const remaining = session.signedInAt + this.absoluteLifetimeMs - now;
    if (remaining <= 0) return;
    await this.client().set(revokedKey(session.sid), '1', 'PX', remaining);
  }

  /** Ends every session of `username` made up to now ("sign out everywhere"). */
  async revokeAll(username: string, now = Date.now()): Promise<void> {
    await this.client().set(epochKey(username), String(now), 'PX', this.absoluteLifetimeMs);
  }
}

function revokedKey(sid: string): string {
  return `${SESSION_KEY_PREFIX}revoked:${sid}`;
}

function epochKey(username: string): string {
  return `${SESSION_KEY_PREFIX}epoch:${username}`;
}
