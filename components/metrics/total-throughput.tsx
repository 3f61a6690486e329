'use client';
/**
 * The overview's total throughput: completed and failed jobs per minute summed over the queues
 * the overview lists (its page), drawn by the metrics pages' chart. Queues without metrics add
 * nothing; the caption says how many queues the sum covers, and a note says when none does.
 */
import { useQuery } from '@tanstack/react-query';
import type { TotalThroughputResponse } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { getJson } from '../api-client';
import { queryKeys } from '../query-keys';
import { usePollingInterval } from '../settings/polling';
import { NO_METRICS_TEXT, ThroughputChart } from './throughput-chart';

const MINUTES = 60;

function useTotalThroughput(page: number, pageSize: number) {
  const refetchInterval = usePollingInterval();
  return useQuery({
    queryKey: queryKeys.metrics.total(MINUTES, page, pageSize),
    queryFn: ({ signal }) =>
      getJson<TotalThroughputResponse>(
        `/api/metrics/total?minutes=${MINUTES}&page=${page}&pageSize=${pageSize}`,
        signal,
      ),
    refetchInterval,
  });
}

export function TotalThroughput({
  page = 1,
  pageSize = 100,
}: {
  page?: number;
  pageSize?: number;
}) {
  const { data, error } = useTotalThroughput(page, pageSize);
  return (
    <section className="card total-throughput" aria-labelledby="total-throughput-heading">
      <div className="card-head">
        <h2 id="total-throughput-heading">Throughput, all listed queues</h2>
      </div>
      {error ? (
        <p role="alert" className="notice error">
          Could not load throughput: {error.message}
        </p>
      ) : !data ? (
        <p aria-live="polite">Loading throughput…</p>
      ) : data.queuesWithMetrics === 0 ? (
        <p className="notice" data-testid="total-throughput-none">
          None of the {formatCount(data.queues)} listed{' '}
          {data.queues === 1 ? 'queue keeps' : 'queues keep'} metrics. {NO_METRICS_TEXT}
        </p>
      ) : (
        <>
          <ThroughputChart
            metrics={{ prefix: '', name: 'all', completed: data.completed, failed: data.failed }}
            minutes={data.minutes}
            height={200}
          />
          <p className="muted" data-testid="total-throughput-coverage">
            Summed over the {formatCount(data.queuesWithMetrics)} of {formatCount(data.queues)}{' '}
            listed {data.queues === 1 ? 'queue' : 'queues'} that keep metrics.
          </p>
        </>
      )}
    </section>
  );
}
