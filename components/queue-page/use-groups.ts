'use client';
/** react-query hooks of the groups panel: a page of groups by cursor and the group actions. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { GroupInfo, GroupJobs, GroupPage } from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';
import { usePollingInterval } from '../settings/polling';

export const GROUP_PAGE_SIZE = 50;

export function useGroups(prefix: string, name: string, cursor: string) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.groups(prefix, name, cursor),
    queryFn: ({ signal }) =>
      getJson<GroupPage>(
        `${queuePath(prefix, name)}/groups?count=${GROUP_PAGE_SIZE}&cursor=${encodeURIComponent(cursor)}`,
        signal,
      ),
    refetchInterval,
    placeholderData: (previous) => previous,
  });
}

export const GROUP_JOBS_PAGE_SIZE = 20;

/** One page of a group's line and its running jobs, while the group's row is open. */
export function useGroupJobs(prefix: string, name: string, groupId: string, page: number) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.groupJobs(prefix, name, groupId, page),
    queryFn: ({ signal }) =>
      getJson<GroupJobs>(
        `${queuePath(prefix, name)}/groups/${encodeURIComponent(groupId)}/jobs?page=${page}&pageSize=${GROUP_JOBS_PAGE_SIZE}`,
        signal,
      ),
    refetchInterval,
    placeholderData: (previous) => previous,
  });
}

export type GroupCommand =
  | { id: string; verb: 'pause' | 'resume' }
  | { id: string; verb: 'concurrency'; concurrency: number | null }
  | { id: string; verb: 'rate-limit'; rateLimit: { max: number; duration: number } | null };

function bodyOf(command: GroupCommand): object {
  if (command.verb === 'concurrency') return { concurrency: command.concurrency };
  if (command.verb === 'rate-limit') return { rateLimit: command.rateLimit };
  return {};
}

export function useGroupCommand(prefix: string, name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (command: GroupCommand) =>
      postJson<GroupInfo>(
        `${queuePath(prefix, name)}/groups/${encodeURIComponent(command.id)}/${command.verb}`,
        bodyOf(command),
      ),
    onSettled: () =>
      client.invalidateQueries({ queryKey: queryKeys.queuePage.groups(prefix, name) }),
  });
}
