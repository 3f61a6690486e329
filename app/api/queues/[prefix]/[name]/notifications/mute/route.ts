/**
 * Mutes a queue's notifications: nothing about it is sent until it is unmuted (its open
 * problems stay open meanwhile; the first round after the unmute sends what changed).
 */
import type { QueueNotifications } from '@/lib/api-types';
import { ApiProblem, withRoute } from '@/lib/server/api';
import { notifyRedis } from '@/lib/server/notify/console-notifier';
import { queueNotifications } from '@/lib/server/notify/route-answers';
import { muteQueue, NOTIFY_LIMITS } from '@/lib/server/notify/state';
import { queueParams, queueTarget, requireQueue } from '@/lib/server/queue-route';

export const dynamic = 'force-dynamic';

export const POST = withRoute(
  { mutation: { action: 'queue.notify.mute', target: queueTarget }, params: queueParams },
  async ({ params, user }): Promise<QueueNotifications> => {
    await requireQueue(params.prefix, params.name);
    if (!(await muteQueue(notifyRedis(), params.prefix, params.name, user.username))) {
      throw new ApiProblem(
        409,
        'CONFLICT',
        `${NOTIFY_LIMITS.maxMutes} queues of this prefix are muted already: unmute some first`,
      );
    }
    return queueNotifications(params.prefix, params.name);
  },
);
