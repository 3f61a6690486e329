/** POST: pause one job scheduler (lib/server/scheduler-action-routes.ts). */
import { schedulerActionRoute } from '@/lib/server/scheduler-action-routes';

export const dynamic = 'force-dynamic';

export const POST = schedulerActionRoute('pause');
