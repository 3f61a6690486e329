/** POST { concurrency: n | null }: the group's own concurrency cap, or back to the default. */
import { groupConcurrencyRoute } from '@/lib/server/scheduler-action-routes';

export const dynamic = 'force-dynamic';

export const POST = groupConcurrencyRoute;
