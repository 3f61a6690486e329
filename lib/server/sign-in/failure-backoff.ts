/**
 * Consecutive failed sign-ins per key (a username, a client address): the first few are free,
 * then each further failure locks the key for twice as long as the last, up to a ceiling. A
 * success clears the key; a key quiet for the ceiling starts over. Memory stays bounded: the
 * least recently failed keys are forgotten first (RecentMap).
 */
import { RecentMap } from '../recent-map';

export interface FailureBackoffOptions {
  /** Failures allowed before the first lock. */
  freeFailures: number;
  /** The first lock; each further failure doubles it. */
  firstLockMs: number;
  /** The longest lock, and how long a key must stay quiet to be forgotten. */
  maxLockMs: number;
  /** Most keys remembered at once. */
  maxKeys?: number;
}

interface KeyState {
  failures: number;
  lastFailureAt: number;
  lockedUntil: number;
}

export class FailureBackoff {
  private readonly keys: RecentMap<string, KeyState>;

  constructor(private readonly options: FailureBackoffOptions) {
    this.keys = new RecentMap(options.maxKeys ?? 10_000);
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string, now = Date.now()): number {
    const state = this.current(key, now);
    return state ? Math.max(0, state.lockedUntil - now) : 0;
  }

  recordFailure(key: string, now = Date.now()): void {
    const failures = (this.current(key, now)?.failures ?? 0) + 1;
    const excess = failures - this.options.freeFailures;
    const lockMs =
      excess <= 0
        ? 0
        : Math.min(
            this.options.maxLockMs,
            this.options.firstLockMs * 2 ** Math.min(excess - 1, 30),
          );
    this.keys.set(key, { failures, lastFailureAt: now, lockedUntil: now + lockMs });
  }

  recordSuccess(key: string): void {
    this.keys.delete(key);
  }

  private current(key: string, now: number): KeyState | undefined {
    const state = this.keys.get(key);
    if (state && now - state.lastFailureAt > this.options.maxLockMs && now >= state.lockedUntil) {
      this.keys.delete(key);
      return undefined;
    }
    return state;
  }
}
