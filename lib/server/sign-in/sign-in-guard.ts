/**
 * The console's defence of its sign-in (docs/security.md, "Sign-in"): consecutive failures back
 * off per username and, behind trusted proxies, per client address; a process-wide gate bounds
 * the bcrypt work in flight. A browser holding a device cookie for the user it signs in as
 * (device-cookie.ts) is throttled per device instead, and has a gate of its own, so neither a
 * guesser's failures on a name nor a flood of made-up names keep that user out.
 *
 * Everything is checked before a password is hashed, so a refused attempt costs the console
 * almost nothing. The checks run inside next-auth's `authorize` (check-credentials.ts), on the
 * username next-auth is about to check.
 */
import { FailureBackoff } from './failure-backoff';
import { SignInGate } from './sign-in-gate';

const MINUTE_MS = 60_000;

export interface SignInAttempt {
  /** The username's throttling key (username-key.ts). */
  userKey: string;
  /** Null when the address cannot be trusted (no proxy hops configured). */
  address: string | null;
  /** The id of a device cookie that vouches for this very user, else null. */
  device: string | null;
}

export class SignInGuard {
  // A person mistyping gets five tries; a guesser soon waits minutes between guesses.
  private readonly byUsername = new FailureBackoff({
    freeFailures: 5,
    firstLockMs: 1_000,
    maxLockMs: 15 * MINUTE_MS,
  });
  // Looser: several people may share one address (an office behind NAT).
  private readonly byAddress = new FailureBackoff({
    freeFailures: 20,
    firstLockMs: 1_000,
    maxLockMs: 15 * MINUTE_MS,
  });
  // A trusted browser guessing (a stolen cookie) backs off like a username does.
  private readonly byDevice = new FailureBackoff({
    freeFailures: 5,
    firstLockMs: 1_000,
    maxLockMs: 15 * MINUTE_MS,
  });
  /** Anonymous sign-ins: two checks at once, eight waiting, the rest refused as busy. */
  private readonly anonymousGate = new SignInGate(2, 8);
  /** Trusted browsers: a lane a flood of anonymous attempts cannot fill. */
  private readonly trustedGate = new SignInGate(1, 4);

  gateFor(attempt: SignInAttempt): SignInGate {
    return attempt.device === null ? this.anonymousGate : this.trustedGate;
  }

  /** Seconds until this attempt may be made; 0 when it may be made now. */
  retryAfterSeconds(attempt: SignInAttempt, now = Date.now()): number {
    if (attempt.device !== null) {
      return Math.ceil(this.byDevice.retryAfterMs(attempt.device, now) / 1000);
    }
    const waits = [this.byUsername.retryAfterMs(attempt.userKey, now)];
    if (attempt.address !== null) waits.push(this.byAddress.retryAfterMs(attempt.address, now));
    return Math.ceil(Math.max(...waits) / 1000);
  }

  recordFailure(attempt: SignInAttempt, now = Date.now()): void {
    if (attempt.device !== null) {
      this.byDevice.recordFailure(attempt.device, now);
      return;
    }
    this.byUsername.recordFailure(attempt.userKey, now);
    if (attempt.address !== null) this.byAddress.recordFailure(attempt.address, now);
  }

  /**
   * Clears the username's (and the device's) failures only: an address keeps its count, or one
   * valid account would let its holder reset the count between guesses at other accounts.
   */
  recordSuccess(attempt: SignInAttempt): void {
    this.byUsername.recordSuccess(attempt.userKey);
    if (attempt.device !== null) this.byDevice.recordSuccess(attempt.device);
  }
}

// One per console process, kept across `next dev` reloads like the Redis connection.
const holder = globalThis as typeof globalThis & { __oxmqSignInGuard?: SignInGuard };

export function signInGuard(): SignInGuard {
  return (holder.__oxmqSignInGuard ??= new SignInGuard());
}
