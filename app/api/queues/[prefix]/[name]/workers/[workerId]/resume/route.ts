import { workerCommandRoute } from '@/lib/server/worker-command-route';

export const dynamic = 'force-dynamic';

export const POST = workerCommandRoute('resume');
