import type { QueueDiagnosis } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { queuePage } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams },
  async ({ params }): Promise<QueueDiagnosis> => {
    await requireQueue(params.prefix, params.name);
    return queuePage.diagnose(params.prefix, params.name);
  },
);
