import { NotificationsPage } from '@/components/notifications/notifications-page';
import { hasRole } from '@/lib/roles';
import { currentUser } from '@/lib/server/auth';

/** Notifications of queue problems to webhooks: settings, muted queues, the test button. */
export default async function NotificationsRoute() {
  const user = await currentUser();
  return (
    <>
      <h1>Notifications</h1>
      {user && hasRole(user.role, 'operator') ? (
        <NotificationsPage />
      ) : (
        <p role="alert" className="notice error">
          The notifications page needs the operator role.
        </p>
      )}
    </>
  );
}
