'use client';
/** react-query hooks for queues: the overview list and the pause/resume actions. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { QueueActionResponse, QueueListResponse } from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { usePollingInterval } from '../settings/polling';

export function queuePath(prefix: string, name: string): string {
  return `/api/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}`;
}

export function useQueues(page = 1, pageSize = 100) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queues.list(page, pageSize),
    queryFn: ({ signal }) =>
      getJson<QueueListResponse>(`/api/queues?page=${page}&pageSize=${pageSize}`, signal),
    refetchInterval,
  });
}

export type QueueAction = 'pause' | 'resume';

export function useQueueAction() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ prefix, name, action }: { prefix: string; name: string; action: QueueAction }) =>
      postJson<QueueActionResponse>(`${queuePath(prefix, name)}/${action}`, {}),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.queues.all }),
  });
}
