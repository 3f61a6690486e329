'use client';
/**
 * The overview's total throughput: completed, failed and retried jobs per minute over the last
 * hour, summed over the queues the overview lists, from the same history reads as their
 * sparklines (GET /api/metrics/sparklines: no read of its own). Queues without history add
 * nothing; the summary says how many queues the sum covers, and a note says when none does.
 */
import type { HistorySparklinesResponse } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { NO_OUTCOMES_TEXT, ThroughputFigure } from './history-figures';
import { summedHistory } from './history-rows';

export function TotalThroughput({
  sparklines,
  error,
}: {
  sparklines: HistorySparklinesResponse | undefined;
  error: Error | null;
}) {
  if (error) {
    return (
      <section className="card total-throughput" aria-label="Throughput, all listed queues">
        <p role="alert" className="notice error">
          Could not load throughput: {error.message}
        </p>
      </section>
    );
  }
  if (!sparklines) {
    return (
      <section className="card total-throughput" aria-label="Throughput, all listed queues">
        <p aria-live="polite">Loading throughput…</p>
      </section>
    );
  }
  const listed = sparklines.queues.length;
  const withHistory = sparklines.queues.filter((queue) => queue.recorded).length;
  if (withHistory === 0) {
    return (
      <section className="card total-throughput" aria-label="Throughput, all listed queues">
        <p className="notice" data-testid="total-throughput-none">
          No job outcomes in the last hour in the {formatCount(listed)} listed{' '}
          {listed === 1 ? 'queue' : 'queues'}. {NO_OUTCOMES_TEXT}
        </p>
      </section>
    );
  }
  return (
    <div className="total-throughput">
      <ThroughputFigure
        history={summedHistory(sparklines)}
        height={200}
        title="Throughput, all listed queues"
        testId="total-throughput"
        headingLevel={2}
        note={`Summed over the ${formatCount(withHistory)} of ${formatCount(listed)} listed ${listed === 1 ? 'queue' : 'queues'} with history in the last hour.`}
      />
    </div>
  );
}
