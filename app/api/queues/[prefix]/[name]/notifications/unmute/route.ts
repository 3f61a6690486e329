/** Unmutes a queue's notifications; the next round sends whatever changed while it was muted. */
import type { QueueNotifications } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { notifyRedis } from '@/lib/server/notify/console-notifier';
import { queueNotifications } from '@/lib/server/notify/route-answers';
import { unmuteQueue } from '@/lib/server/notify/state';
import { queueParams, queueTarget, requirePrefix } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const POST = withRoute(
  { mutation: { action: 'queue.notify.unmute', target: queueTarget }, params: queueParams },
  async ({ params }): Promise<QueueNotifications> => {
    // A queue that is gone can still be unmuted (its mute is dropped anyway by the notifier).
    requirePrefix(params.prefix);
    await unmuteQueue(notifyRedis(), params.prefix, params.name);
    return queueNotifications(params.prefix, params.name);
  },
);
