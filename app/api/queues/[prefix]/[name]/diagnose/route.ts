import type { QueueDiagnosis } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { admin } from '@/lib/server/oxmq';
import { queueParams, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams },
  async ({ params }): Promise<QueueDiagnosis> => {
    await requireQueue(params.prefix, params.name);
    return admin().queues.diagnose(params.prefix, params.name);
  },
);
