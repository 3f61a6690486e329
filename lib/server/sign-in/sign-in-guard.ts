/**
 * The console's defence of its sign-in form (docs/security.md, "Sign-in"): consecutive failures
 * back off per username and, behind trusted proxies, per client address; a process-wide gate
 * bounds the bcrypt work in flight. Everything is checked before a password is hashed, so a
 * refused attempt costs the console almost nothing.
 */
import { FailureBackoff } from './failure-backoff';
import { SignInGate } from './sign-in-gate';

const MINUTE_MS = 60_000;

export interface SignInAttempt {
  username: string;
  /** Null when the address cannot be trusted (no proxy hops configured). */
  address: string | null;
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
  readonly gate = new SignInGate(2, 8);

  /** Seconds until this attempt may be made; 0 when it may be made now. */
  retryAfterSeconds(attempt: SignInAttempt, now = Date.now()): number {
    const waits = [this.byUsername.retryAfterMs(usernameKey(attempt.username), now)];
    if (attempt.address !== null) waits.push(this.byAddress.retryAfterMs(attempt.address, now));
    return Math.ceil(Math.max(...waits) / 1000);
  }

  recordFailure(attempt: SignInAttempt, now = Date.now()): void {
    this.byUsername.recordFailure(usernameKey(attempt.username), now);
    if (attempt.address !== null) this.byAddress.recordFailure(attempt.address, now);
  }

  /**
   * Clears the username's failures only: an address keeps its count, or one valid account
   * would let its holder reset the count between guesses at other accounts.
   */
  recordSuccess(attempt: SignInAttempt): void {
    this.byUsername.recordSuccess(usernameKey(attempt.username));
  }
}

/** Usernames differ only in case for throttling, so `Ada` and `ada` share one budget. */
function usernameKey(username: string): string {
  return username.trim().toLowerCase();
}
