/**
 * Until when a worker must not fetch because the queue's rate limit (or a manual one) is
 * reached. Set from the TTL Redis reports with a refused fetch; read by the slot loop, the
 * completion's fetch-next and manual processing.
 */
export class RateLimitGate {
  private until = 0;

  /** No fetch for `ttlMs` from now (nothing changes for 0 or less). */
  limitFor(ttlMs: number): void {
    if (ttlMs > 0) this.until = Date.now() + ttlMs;
  }

  isLimited(now = Date.now()): boolean {
    return this.until > now;
  }

  /** Ms left of the limit (0 or less: none). */
  remaining(now = Date.now()): number {
    return this.until - now;
  }
}
