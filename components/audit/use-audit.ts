'use client';
import { useQuery } from '@tanstack/react-query';
import type { AuditKind, AuditListResponse } from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { usePollingInterval } from '../settings/polling';

/**
 * One page of the audit log, newest first; `before` is the cursor of an older page, `kind`
 * picks the stream (accepted actions, or refused requests).
 */
export function useAuditPage(kind: AuditKind, before: string | null) {
  const refetchInterval = usePollingInterval();
  const query = before === null ? '' : `&before=${encodeURIComponent(before)}`;
  return useQuery({
    queryKey: queryKeys.audit.page(kind, before),
    queryFn: ({ signal }) =>
      getJson<AuditListResponse>(`/api/audit?kind=${kind}&pageSize=50${query}`, signal),
    // Only the newest page changes; older pages are immutable history.
    refetchInterval: before === null ? refetchInterval : false,
  });
}
