'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { LiveProvider } from '@/components/live/live-provider';
import { PollingProvider } from '@/components/settings/polling';
import { SessionInfoProvider } from '@/components/session/session-context';
import type { SessionInfo } from '@/lib/api-types';

export function Providers({
  session,
  children,
}: {
  session: SessionInfo | null;
  children: ReactNode;
}) {
  // One client per browser tab (useState, not module scope: never shared between requests).
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { staleTime: 1_000, retry: 1, refetchOnWindowFocus: true },
        },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <SessionInfoProvider value={session}>
        {/* Live events sit outside polling: polling reads their status. */}
        <LiveProvider>
          <PollingProvider>{children}</PollingProvider>
        </LiveProvider>
      </SessionInfoProvider>
    </QueryClientProvider>
  );
}
