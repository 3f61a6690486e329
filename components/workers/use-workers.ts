'use client';
import { useQuery } from '@tanstack/react-query';
import type { WorkersResponse } from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { usePollingInterval } from '../settings/polling';

export function useWorkers(page = 1, pageSize = 100) {
  // Workers connecting or leaving emit no queue event: this list always polls.
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.workers.list(page, pageSize),
    queryFn: ({ signal }) =>
      getJson<WorkersResponse>(`/api/workers?page=${page}&pageSize=${pageSize}`, signal),
    refetchInterval,
  });
}
