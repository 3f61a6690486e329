'use client';
import { useQuery } from '@tanstack/react-query';
import type { WorkersResponse } from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { useUnannouncedPollingInterval } from '../settings/polling';

export function useWorkers(page = 1, pageSize = 100) {
  // Workers connecting or leaving and their heartbeats emit no queue event: this list polls at
  // the user's interval even while live events are open (they never refresh it).
  const refetchInterval = useUnannouncedPollingInterval();
  return useQuery({
    queryKey: queryKeys.workers.list(page, pageSize),
    queryFn: ({ signal }) =>
      getJson<WorkersResponse>(`/api/workers?page=${page}&pageSize=${pageSize}`, signal),
    refetchInterval,
  });
}
