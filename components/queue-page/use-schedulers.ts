'use client';
/** react-query hooks of the schedulers panel: a page of schedulers and the operator's actions. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SchedulerActionResponse, SchedulerPage } from '@/lib/api-types';
import { getJson, postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';
import { usePollingInterval } from '../settings/polling';

export const SCHEDULER_PAGE_SIZE = 25;

export function useSchedulers(prefix: string, name: string, page: number) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.queuePage.schedulers(prefix, name, page),
    queryFn: ({ signal }) =>
      getJson<SchedulerPage>(
        `${queuePath(prefix, name)}/schedulers?page=${page}&pageSize=${SCHEDULER_PAGE_SIZE}`,
        signal,
      ),
    refetchInterval,
    placeholderData: (previous) => previous,
  });
}

export type SchedulerCommand =
  | { id: string; verb: 'run' | 'pause' | 'resume' | 'remove' }
  | { id: string; verb: 'repeat'; body: { every: number } | { pattern: string } };

/** One action on one scheduler; afterwards the queue page (counts, lists, schedulers) refetches. */
export function useSchedulerCommand(prefix: string, name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (command: SchedulerCommand) =>
      postJson<SchedulerActionResponse>(
        `${queuePath(prefix, name)}/schedulers/${encodeURIComponent(command.id)}/${command.verb}`,
        command.verb === 'repeat' ? command.body : {},
      ),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.queues.all }),
  });
}
