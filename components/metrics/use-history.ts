'use client';
/**
 * react-query hooks for the timing history (GET …/history, /api/metrics/history,
 * /api/metrics/sparklines). A chart refreshes at the polling setting's pace, but no more often
 * than its range needs (a 30-day chart of 4-hour points gains nothing from a 2 s poll).
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type {
  HistoryAcrossResponse,
  HistoryRangeName,
  HistorySparklinesResponse,
  QueueHistoryResponse,
} from '@/lib/api-types';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { queuePath } from '../queues/use-queues';
import { useUnannouncedPollingInterval } from '../settings/polling';
import { rangeOption } from './history-format';

function historyQuery(range: HistoryRangeName, job: string | null): string {
  const params = new URLSearchParams({ range });
  if (job !== null) params.set('name', job);
  return params.toString();
}

/** Workers flush the history every few seconds without an event saying so: polled, not pushed. */
function useRefetchInterval(range: HistoryRangeName): number | false {
  const polling = useUnannouncedPollingInterval();
  if (!polling) return false;
  return Math.max(polling, rangeOption(range).minRefreshMs);
}

export function useQueueHistory(
  prefix: string,
  name: string,
  range: HistoryRangeName,
  job: string | null,
) {
  const refetchInterval = useRefetchInterval(range);
  return useQuery({
    queryKey: queryKeys.history.queue(prefix, name, range, job),
    queryFn: ({ signal }) =>
      getJson<QueueHistoryResponse>(
        `${queuePath(prefix, name)}/history?${historyQuery(range, job)}`,
        signal,
      ),
    refetchInterval,
    // Another range or job name keeps the charts up until the new answer arrives.
    placeholderData: keepPreviousData,
  });
}

export function useHistoryAcross(range: HistoryRangeName, job: string | null, page = 1) {
  const refetchInterval = useRefetchInterval(range);
  return useQuery({
    queryKey: queryKeys.history.across(range, job, page),
    queryFn: ({ signal }) =>
      getJson<HistoryAcrossResponse>(
        `/api/metrics/history?${historyQuery(range, job)}&page=${page}`,
        signal,
      ),
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

/** The `queues` parameter: `<prefix>/<name>` pairs, each part URI-encoded, comma-separated. */
function encodeQueueList(queues: readonly { prefix: string; name: string }[]): string {
  return queues
    .map((queue) => `${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`)
    .join(',');
}

/**
 * The last hour per minute of the queues a page lists (none: no request). Refetched when live
 * events say jobs finished, like the overview's counts, and polled: a worker writes its counts
 * a few seconds after the jobs finish.
 */
export function useSparklines(queues: readonly { prefix: string; name: string }[]) {
  const refetchInterval = useUnannouncedPollingInterval();
  const list = encodeQueueList(queues);
  return useQuery({
    queryKey: queryKeys.metrics.sparklines(list),
    queryFn: ({ signal }) =>
      getJson<HistorySparklinesResponse>(
        `/api/metrics/sparklines?queues=${encodeURIComponent(list)}`,
        signal,
      ),
    enabled: list !== '',
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}
