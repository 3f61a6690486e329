import { AuditTable } from '@/components/audit/audit-table';
import { hasRole } from '@/lib/roles';
import { currentUser } from '@/lib/server/auth';

export default async function AuditPage() {
  const user = await currentUser();
  return (
    <>
      <h1>Audit log</h1>
      {user && hasRole(user.role, 'operator') ? (
        <AuditTable />
      ) : (
        <p role="alert" className="notice error">
          The audit log needs the operator role.
        </p>
      )}
    </>
  );
}
