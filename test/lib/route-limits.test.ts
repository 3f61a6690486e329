/** The in-process budgets behind 429s (lib/server/route-rate-limit.ts, live-stream-quota.ts). */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/server/api-error';
import { StreamQuota } from '../../lib/server/live-stream-quota';
import { RouteRateLimiter } from '../../lib/server/route-rate-limit';

function refusal(call: () => void): ApiProblem | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (error instanceof ApiProblem) return error;
    throw error;
  }
}

describe('RouteRateLimiter', () => {
  it('lets a burst through, then refills at its rate, per user and per kind', () => {
    const limiter = new RouteRateLimiter({ search: { burst: 3, perSecond: 2 } });
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i += 1)
      expect(refusal(() => limiter.take('ann', 'search', t0))).toBe(undefined);
    const refused = refusal(() => limiter.take('ann', 'search', t0));
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 1 });
    expect(refusal(() => limiter.take('bob', 'search', t0))).toBe(undefined);
    expect(refusal(() => limiter.take('ann', 'other-kind', t0))).toBe(undefined);
    // Half a second later one request's worth (2/s) is back.
    expect(refusal(() => limiter.take('ann', 'search', t0 + 500))).toBe(undefined);
    expect(refusal(() => limiter.take('ann', 'search', t0 + 500))?.status).toBe(429);
  });
});

describe('StreamQuota', () => {
  it('counts a user’s open streams and frees a slot once, on release', () => {
    const quota = new StreamQuota(2);
    const first = quota.acquire('ann');
    quota.acquire('ann');
    expect(refusal(() => quota.acquire('ann'))).toMatchObject({
      status: 429,
      code: 'TOO_MANY_STREAMS',
    });
    expect(refusal(() => quota.acquire('bob'))).toBe(undefined);
    first();
    first(); // a second release changes nothing
    quota.acquire('ann');
    expect(refusal(() => quota.acquire('ann'))?.status).toBe(429);
  });
});
