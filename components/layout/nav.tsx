'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { hasRole } from '@/lib/roles';
import { LiveStatusBadge } from '../live/live-status';
import { PollingSelect } from '../settings/polling';
import { useSessionInfo } from '../session/session-context';
import { ThemeToggle } from '../theme/theme-toggle';
import { QuickJump } from './quick-jump';

const LINKS = [
  { href: '/', label: 'Overview', role: 'viewer' },
  { href: '/workers', label: 'Workers', role: 'viewer' },
  { href: '/metrics', label: 'Metrics', role: 'viewer' },
  { href: '/audit', label: 'Audit log', role: 'operator' },
  { href: '/notifications', label: 'Notifications', role: 'operator' },
  { href: '/users', label: 'Users', role: 'admin' },
] as const;

export function Nav() {
  const pathname = usePathname();
  const session = useSessionInfo();
  return (
    <header className="header">
      <span className="brand">OxMQ</span>
      {session && (
        <nav aria-label="Main">
          <ul>
            {LINKS.filter((link) => hasRole(session.role, link.role)).map((link) => (
              <li key={link.href}>
                <Link href={link.href} aria-current={pathname === link.href ? 'page' : undefined}>
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <div className="header-tools">
        {session && <QuickJump />}
        {session?.readOnly && <span className="badge paused">read-only</span>}
        <LiveStatusBadge />
        {session && <PollingSelect />}
        <ThemeToggle />
        {session && (
          <>
            <span>
              {session.username} ({session.role})
            </span>
            <button type="button" onClick={() => void signOut({ callbackUrl: '/login' })}>
              Sign out
            </button>
          </>
        )}
      </div>
    </header>
  );
}
