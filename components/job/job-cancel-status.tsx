'use client';
/**
 * A running job's cancel request, on the job page: waiting for the processor to stop, then,
 * past the grace period, that the processor ignores its signal, with a force stop when the
 * holding worker can do one (a sandboxed processor's child is killed; the attempt fails as
 * cancelled) and what to expect when it cannot.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { JobCancelStateResponse, JobDetailResponse } from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { useCanMutate } from '../session/session-context';
import { useUnannouncedPollingInterval } from '../settings/polling';
import { jobApiPath, useJobAction, type JobRef } from './use-job';

/** How often the page looks again while a request waits for its processor (ms). */
const WAITING_POLL_MS = 1_000;

function useCancelState(job: JobRef, active: boolean) {
  const interval = useUnannouncedPollingInterval();
  return useQuery({
    queryKey: [...queryKeys.job.all(job.prefix, job.name, job.id), 'cancel'],
    queryFn: ({ signal }) => getJson<JobCancelStateResponse>(`${jobApiPath(job)}/cancel`, signal),
    enabled: active,
    // Nothing announces how long a request has waited: poll briskly while one waits.
    refetchInterval: (query) => (query.state.data?.request ? WAITING_POLL_MS : interval),
  });
}

/** Seconds since the request, counted on from the last answer between polls. */
function useAgeSeconds(ageMs: number | undefined, fetchedAt: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (ageMs === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [ageMs]);
  return ageMs === undefined ? 0 : Math.floor((ageMs + Math.max(0, now - fetchedAt)) / 1000);
}

export function JobCancelStatus({ job, detail }: { job: JobRef; detail: JobDetailResponse }) {
  const active = detail.state === 'active';
  const { data, dataUpdatedAt } = useCancelState(job, active);
  const canOperate = useCanMutate('operator');
  const action = useJobAction(job);
  const request = active ? data?.request : undefined;
  const ageSeconds = useAgeSeconds(request?.ageMs, dataUpdatedAt);
  if (!request || !data) return null;

  const reason = request.reason ? ` (${request.reason})` : '';
  const ignored = ageSeconds * 1000 >= data.graceMs;
  if (!ignored) {
    return (
      <p role="status" className="notice" data-testid="cancel-status">
        Cancel requested {ageSeconds} s ago{reason}: waiting for the processor to stop.
      </p>
    );
  }
  const forceStop = () => {
    if (!window.confirm(`Force stop job ${job.id}? Its sandbox child is killed.`)) return;
    action.mutate({ action: 'cancel', body: { reason: request.reason, force: true } });
  };
  return (
    <div role="alert" className="notice error" data-testid="cancel-status">
      <p>
        The processor has not stopped {ageSeconds} s after the cancel request{reason}: it does not
        act on its AbortSignal.
      </p>
      {request.forced ? (
        <p>Force stop requested: the worker is killing its sandbox child.</p>
      ) : data.canForce ? (
        canOperate && (
          <p>
            <button
              type="button"
              className="danger"
              disabled={action.isPending}
              onClick={forceStop}
            >
              Force stop
            </button>{' '}
            kills the sandbox child running it; the attempt fails as cancelled.
          </p>
        )
      ) : (
        <p>
          Its processor runs inside the worker&apos;s process, so it cannot be stopped from here:
          the job ends when the processor returns (a result then completes it).
        </p>
      )}
      {action.error && <p>{action.error.message}</p>}
    </div>
  );
}
