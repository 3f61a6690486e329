/** POST { every } | { pattern, tz? }: a new schedule for a running scheduler, same id. */
import { schedulerRepeatRoute } from '@/lib/server/scheduler-action-routes';

export const dynamic = 'force-dynamic';

export const POST = schedulerRepeatRoute;
