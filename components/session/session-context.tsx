'use client';
/** Who is signed in and whether the server is read-only, for showing or hiding controls. */
import { createContext, useContext, type ReactNode } from 'react';
import type { ConsoleLinks, SessionInfo } from '@/lib/api-types';
import { hasRole, type Role } from '@/lib/roles';

const SessionContext = createContext<SessionInfo | null>(null);

export function SessionInfoProvider({
  value,
  children,
}: {
  value: SessionInfo | null;
  children: ReactNode;
}) {
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSessionInfo(): SessionInfo | null {
  return useContext(SessionContext);
}

const NO_LINKS: ConsoleLinks = { traceUrl: null, grafanaUrl: null };

/** The link settings (OXMQ_TRACE_URL, OXMQ_GRAFANA_URL), read by the server at render. */
export function useConsoleLinks(): ConsoleLinks {
  return useSessionInfo()?.links ?? NO_LINKS;
}

/**
 * Whether to offer a mutation needing `role`. Only a courtesy: the API enforces the same rules.
 */
export function useCanMutate(role: Role): boolean {
  const session = useSessionInfo();
  return session !== null && !session.readOnly && hasRole(session.role, role);
}
