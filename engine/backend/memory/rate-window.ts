/** The fixed window of a rate limit (the queue's and each group's), with an expiry. */
export interface Window {
  count: number;
  /** ms; undefined: no expiry. */
  expiresAt?: number;
}

/** ms left of a window: -2 none (or expired), -1 no expiry, else > 0 (as Redis's PTTL). */
export function windowTtl(window: Window | undefined, now: number): number {
  if (!window) return -2;
  if (window.expiresAt === undefined) return -1;
  const left = window.expiresAt - now;
  return left > 0 ? left : -2;
}
