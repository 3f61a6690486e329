'use client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { QueueMetricsResponse } from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';
import { usePollingInterval } from '../settings/polling';

export function useQueueMetrics(prefix: string, name: string, minutes: number) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.metrics.queue(prefix, name, minutes),
    queryFn: ({ signal }) =>
      getJson<QueueMetricsResponse>(
        `${queuePath(prefix, name)}/metrics?minutes=${minutes}`,
        signal,
      ),
    refetchInterval,
    // Switching the window keeps the old chart up until the new one arrives.
    placeholderData: keepPreviousData,
  });
}
