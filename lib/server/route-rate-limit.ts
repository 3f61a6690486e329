/**
 * Per-user budgets for the console's expensive reads (a search reading thousands of job hashes,
 * a timeline scanning an events stream): a token bucket per user and kind of route, in the
 * console process's memory. A user who drains one gets 429 with Retry-After; other users and
 * other routes are not affected.
 */
import { ApiProblem } from './api-error';
import { RecentMap } from './recent-map';

export interface RateBudget {
  /** Requests allowed in a burst. */
  burst: number;
  /** Requests added back per second. */
  perSecond: number;
}

/** The budgets by kind of route; cheap routes have none. */
const ROUTE_BUDGETS = {
  // A page of the console makes a few of these per action; a loop of them is what this stops.
  search: { burst: 60, perSecond: 2 },
  timeline: { burst: 60, perSecond: 2 },
} as const satisfies Record<string, RateBudget>;

export type RouteBudgetName = keyof typeof ROUTE_BUDGETS;

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Users × kinds remembered at once; past this the oldest bucket is forgotten (full again). */
const MAX_BUCKETS = 10_000;

export class RouteRateLimiter {
  private readonly buckets = new RecentMap<string, Bucket>(MAX_BUCKETS);

  constructor(private readonly budgets: Record<string, RateBudget> = ROUTE_BUDGETS) {}

  /** Takes one request from the user's budget, or throws 429 RATE_LIMITED with Retry-After. */
  take(username: string, name: string, now = Date.now()): void {
    const budget = this.budgets[name];
    if (!budget) return;
    const key = `${name}\u0000${username}`;
    const bucket = this.buckets.get(key) ?? { tokens: budget.burst, updatedAt: now };
    const refilled = Math.min(
      budget.burst,
      bucket.tokens + ((now - bucket.updatedAt) / 1000) * budget.perSecond,
    );
    if (refilled < 1) {
      this.buckets.set(key, { tokens: refilled, updatedAt: now });
      const retryAfter = Math.ceil((1 - refilled) / budget.perSecond);
      throw new ApiProblem(429, 'RATE_LIMITED', `Too many ${name} requests; try again later`, {
        retryAfterSeconds: retryAfter,
      });
    }
    this.buckets.set(key, { tokens: refilled - 1, updatedAt: now });
  }
}
