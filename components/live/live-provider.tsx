'use client';
/** Mounts useLiveInvalidation once for the whole app and shares its status. */
import type { ReactNode } from 'react';
import { useSessionInfo } from '../session/session-context';
import { LiveStatusContext } from './live-status';
import { useLiveInvalidation } from './use-live-invalidation';

export function LiveProvider({ children }: { children: ReactNode }) {
  const session = useSessionInfo();
  const status = useLiveInvalidation(session !== null);
  return <LiveStatusContext.Provider value={status}>{children}</LiveStatusContext.Provider>;
}
