'use client';
/**
 * Quiet / resume an OxMQ worker, from the Workers page or a queue's Live workers panel, through
 * the queue's worker routes; the command lands at its next heartbeat. Both views are refreshed.
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
    onSettled: (_answer, _error, { prefix, name }) =>
      Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.workers.all }),
        client.invalidateQueries({ queryKey: queryKeys.queuePage.heartbeats(prefix, name) }),
      ]),
  });
}

/** What became of the last command: its error, or that it was sent. */
export function WorkerCommandOutcome({
  command,
}: {
  command: ReturnType<typeof useWorkerCommand>;
}) {
  if (command.error) {
    return (
      <p role="alert" className="notice error">
        {command.error.message}
      </p>
    );
  }
  if (!command.isSuccess) return null;
  return (
    <p role="status" className="notice">
      Sent; the worker acts on it at its next heartbeat.
    </p>
  );
}
