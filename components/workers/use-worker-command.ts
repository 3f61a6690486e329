'use client';
/**
 * Quiet / resume an OxMQ worker from the Workers page, through the queue's worker routes (the
 * same ones the queue page's Live workers panel uses); the command lands at its next heartbeat.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { WorkerCommandResponse } from '@/lib/api-types';
import { postJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';

export interface WorkerCommand {
  prefix: string;
  name: string;
  workerId: string;
  verb: 'quiet' | 'resume';
}

export function useWorkerCommand() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ prefix, name, workerId, verb }: WorkerCommand) =>
      postJson<WorkerCommandResponse>(
        `${queuePath(prefix, name)}/workers/${encodeURIComponent(workerId)}/${verb}`,
      ),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.workers.all }),
  });
}
