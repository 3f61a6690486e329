import { SignOutEverywhere } from '@/components/users/sign-out-everywhere';
import { hasRole } from '@/lib/roles';
import { currentUser } from '@/lib/server/auth';
import { configuredUsers } from '@/lib/server/users';

/** The configured users and their roles; admins can end every session of one of them. */
export default async function UsersPage() {
  const user = await currentUser();
  if (!user || !hasRole(user.role, 'admin')) {
    return (
      <>
        <h1>Users</h1>
        <p role="alert" className="notice error">
          The users page needs the admin role.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Users</h1>
      <p>
        Users come from the console&apos;s configuration (<code>OXMQ_USERS</code>,{' '}
        <code>OXMQ_ADMIN_USER</code>). Signing a user out everywhere ends every session they hold
        now, on every console process; they can sign in again.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Role</th>
            <th scope="col">Sessions</th>
          </tr>
        </thead>
        <tbody>
          {configuredUsers().map((configured) => (
            <tr key={configured.username}>
              <td>{configured.username}</td>
              <td>{configured.role}</td>
              <td>
                <SignOutEverywhere username={configured.username} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
