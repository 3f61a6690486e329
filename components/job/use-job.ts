'use client';
/** react-query hooks for the job page: the job, its log tail, its timeline and its actions. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  JobActionResponse,
  JobCancelResponse,
  JobDetailResponse,
  JobLogsResponse,
  JobTimelineResponse,
} from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { usePollingInterval } from '../settings/polling';

export interface JobRef {
  prefix: string;
  name: string;
  id: string;
}

export function jobApiPath({ prefix, name, id }: JobRef): string {
  return `/api/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}/jobs/${encodeURIComponent(id)}`;
}

export function useJob(job: JobRef) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.job.detail(job.prefix, job.name, job.id),
    queryFn: ({ signal }) => getJson<JobDetailResponse>(jobApiPath(job), signal),
    refetchInterval,
  });
}

export function useJobLogs(job: JobRef, pageSize: number) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.job.logs(job.prefix, job.name, job.id, pageSize),
    queryFn: ({ signal }) =>
      getJson<JobLogsResponse>(`${jobApiPath(job)}/logs?page=1&pageSize=${pageSize}`, signal),
    refetchInterval,
  });
}

export function useJobTimeline(job: JobRef) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.job.timeline(job.prefix, job.name, job.id),
    queryFn: ({ signal }) => getJson<JobTimelineResponse>(`${jobApiPath(job)}/timeline`, signal),
    refetchInterval,
  });
}

export type JobActionName =
  'retry' | 'promote' | 'remove' | 'priority' | 'delay' | 'data' | 'duplicate' | 'cancel';

export function useJobAction(job: JobRef) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ action, body = {} }: { action: JobActionName; body?: unknown }) =>
      postJson<JobActionResponse & Partial<JobCancelResponse>>(
        `${jobApiPath(job)}/${action}`,
        body,
      ),
    // The job, its queue's counts and listings all change: refresh the whole queues branch.
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.queues.all }),
  });
}
