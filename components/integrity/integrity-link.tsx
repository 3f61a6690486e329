'use client';
/** The queue page's link to its integrity page, shown to admins only (the page's API needs it). */
import Link from 'next/link';
import { hasRole } from '@/lib/roles';
import { useSessionInfo } from '../session/session-context';

export function IntegrityLink({ prefix, name }: { prefix: string; name: string }) {
  const session = useSessionInfo();
  if (!session || !hasRole(session.role, 'admin')) return null;
  const href = `/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}/integrity`;
  return (
    <>
      {' · '}
      <Link href={href} data-testid="integrity-link">
        Integrity check
      </Link>
    </>
  );
}
