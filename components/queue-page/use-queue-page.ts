'use client';
/** react-query hooks for the queue page: jobs, search, limits, diagnosis and its mutations. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  JobListResponse,
  JobSearchResponse,
  QueueCountState,
  QueueDiagnosis,
  QueueHeartbeatsResponse,
  QueueLimits,
  QueueOverviewResponse,
} from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';
import { usePollingInterval, useUnannouncedPollingInterval } from '../settings/polling';

export function useQueueOverview(prefix: string, name: string) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queues.detail(prefix, name),
    queryFn: ({ signal }) => getJson<QueueOverviewResponse>(queuePath(prefix, name), signal),
    refetchInterval,
  });
}

export function useJobs(
  prefix: string,
  name: string,
  state: QueueCountState,
  page: number,
  pageSize: number,
) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.jobs(prefix, name, state, page, pageSize),
    queryFn: ({ signal }) =>
      getJson<JobListResponse>(
        `${queuePath(prefix, name)}/jobs?state=${state}&page=${page}&pageSize=${pageSize}`,
        signal,
      ),
    refetchInterval,
    placeholderData: (previous) => previous,
  });
}

export interface SearchInput {
  mode: 'id' | 'name' | 'text' | 'path';
  q: string;
  path: string;
  state: QueueCountState;
  cursor: number;
}

/** A search runs when submitted (`input` non-null); it is not polled: scans cost Redis work. */
export function useJobSearch(prefix: string, name: string, input: SearchInput | null) {
  const params = new URLSearchParams();
  if (input) {
    params.set('mode', input.mode);
    params.set('q', input.q);
    params.set('state', input.state);
    params.set('cursor', String(input.cursor));
    if (input.mode === 'path') params.set('path', input.path);
  }
  return useQuery({
    queryKey: queryKeys.queuePage.search(prefix, name, Object.fromEntries(params)),
    queryFn: ({ signal }) =>
      getJson<JobSearchResponse>(`${queuePath(prefix, name)}/search?${params.toString()}`, signal),
    enabled: input !== null,
    staleTime: Infinity,
  });
}

export function useQueueLimits(prefix: string, name: string) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.limits(prefix, name),
    queryFn: ({ signal }) => getJson<QueueLimits>(`${queuePath(prefix, name)}/limits`, signal),
    refetchInterval,
  });
}

export function useWorkerHeartbeats(prefix: string, name: string) {
  // Heartbeats change without a queue event, so live events never refresh them.
  const refetchInterval = useUnannouncedPollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.heartbeats(prefix, name),
    queryFn: ({ signal }) =>
      getJson<QueueHeartbeatsResponse>(`${queuePath(prefix, name)}/workers`, signal),
    refetchInterval,
  });
}

export function useDiagnosis(prefix: string, name: string) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.diagnosis(prefix, name),
    queryFn: ({ signal }) => getJson<QueueDiagnosis>(`${queuePath(prefix, name)}/diagnose`, signal),
    refetchInterval,
  });
}

/** A POST to `<queue>/<path>`; afterwards everything about queues is refetched. */
export function useQueuePost<TBody, TResult>(prefix: string, name: string, path: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: TBody) => postJson<TResult>(`${queuePath(prefix, name)}/${path}`, body),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.queues.all }),
  });
}
