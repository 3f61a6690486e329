/** Whether the console notifies about this queue: notifications on, and the queue's mute. */
import type { QueueNotifications } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { queueNotifications } from '@/lib/server/notify/route-answers';
import { queueParams, requirePrefix } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: queueParams },
  async ({ params }): Promise<QueueNotifications> => {
    requirePrefix(params.prefix);
    return queueNotifications(params.prefix, params.name);
  },
);
