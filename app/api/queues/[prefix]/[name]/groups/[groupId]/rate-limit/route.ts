/** POST { rateLimit: { max, duration } | null }: the group's own rate limit, or the default. */
import { groupRateLimitRoute } from '@/lib/server/scheduler-action-routes';

export const dynamic = 'force-dynamic';

export const POST = groupRateLimitRoute;
