/**
 * The notification settings in force (webhooks by label, never by URL), which console sends
 * now, and the muted queues: for the notifications page. docs/observability.md, Notifications.
 */
import type { NotificationsStatus } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { notificationsStatus } from '@/lib/server/notify/route-answers';

export const dynamic = 'force-dynamic';

export const GET = withRoute({ role: 'operator' }, (): Promise<NotificationsStatus> =>
  notificationsStatus(),
);
