/**
 * Sends a test notification to every configured webhook, one attempt each, and answers how
 * each one went. Admin only; audited as `notify.test`, and each delivery as
 * `notification.test` (or `notification.failed`) by `system:notifier`.
 */
import type { TestNotificationResponse } from '@/lib/api-types';
import { ApiProblem, withRoute } from '@/lib/server/api';
import { consoleNotifier } from '@/lib/server/notify/console-notifier';

export const dynamic = 'force-dynamic';

export const POST = withRoute(
  { mutation: { action: 'notify.test', target: () => 'webhooks' } },
  async ({ user }): Promise<TestNotificationResponse> => {
    const notifier = consoleNotifier();
    if (!notifier.enabled) {
      throw new ApiProblem(
        409,
        'CONFLICT',
        'No webhook is configured: set OXMQ_NOTIFY_WEBHOOKS to send notifications',
      );
    }
    const results = await notifier.sendTest(user.username);
    return {
      results: results.map(({ webhook, format, ok, attempts, status, error }) => ({
        webhook,
        format,
        ok,
        attempts,
        status,
        ...(error === undefined ? {} : { error }),
      })),
    };
  },
);
