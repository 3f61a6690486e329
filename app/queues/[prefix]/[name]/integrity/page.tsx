import { IntegrityPanel } from '@/components/integrity/integrity-panel';
import { hasRole } from '@/lib/roles';
import { currentUser } from '@/lib/server/auth';

export default async function IntegrityRoutePage({
  params,
}: {
  params: Promise<{ prefix: string; name: string }>;
}) {
  const { prefix, name } = await params;
  const user = await currentUser();
  if (!user || !hasRole(user.role, 'admin')) {
    return (
      <p role="alert" className="notice error">
        The integrity check needs the admin role.
      </p>
    );
  }
  return <IntegrityPanel prefix={safeDecode(prefix)} name={safeDecode(name)} />;
}

/** Segments may arrive still percent-encoded; a stray '%' must not crash the page. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
