/** POST: resume one tenant group (lib/server/scheduler-action-routes.ts). */
import { groupStateRoute } from '@/lib/server/scheduler-action-routes';

export const dynamic = 'force-dynamic';

export const POST = groupStateRoute('resume');
