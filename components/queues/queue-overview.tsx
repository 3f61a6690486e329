'use client';
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import { grafanaOverviewHref } from '@/lib/links';
import { formatCount } from '@/lib/format-number';
import { ExternalLink } from '../layout/external-link';
import { TotalThroughput } from '../metrics/total-throughput';
import { useSparklines } from '../metrics/use-history';
import { useConsoleLinks } from '../session/session-context';
import { DiscoveryNotices } from './discovery-notices';
import { ProblemStrip } from './problem-strip';
import { QueueCard } from './queue-card';
import { cardSparklines } from './sparkline-series';
import {
  applyQueueView,
  parseQueueView,
  QUEUE_SORT_LABELS,
  QUEUE_SORTS,
  queueViewQuery,
  type QueueSort,
  type QueueView,
} from './queue-view';
import { useQueues } from './use-queues';

export function QueueOverviewList() {
  const { data, error, isPending } = useQueues();
  // One read for the page of queues listed, whatever the sort or filter shows of it.
  const sparklines = useSparklines(data?.queues ?? []);
  const dashboard = grafanaOverviewHref(useConsoleLinks().grafanaUrl);
  const fromUrl = parseQueueView(useSearchParams());
  // Local state answers every keystroke at once; the URL follows, so the view can be shared.
  const [view, setLocalView] = useState<QueueView>(fromUrl);
  const setView = (next: QueueView) => {
    setLocalView(next);
    const url = new URL(window.location.href);
    url.search = queueViewQuery(next);
    window.history.replaceState(window.history.state, '', url);
  };

  if (isPending) return <p aria-live="polite">Loading queues…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load queues: {error.message}
      </p>
    );
  }
  const shown = applyQueueView(data.queues, view);
  const now = Date.now();
  const lineOf = (queue: { prefix: string; name: string }) =>
    sparklines.data?.queues.find((one) => one.prefix === queue.prefix && one.name === queue.name);
  return (
    <>
      {dashboard && (
        <p>
          <ExternalLink href={dashboard} testId="grafana-overview-link">
            Grafana overview dashboard
          </ExternalLink>
        </p>
      )}
      <DiscoveryNotices complete={data.complete} shown={data.queues.length} total={data.total} />
      {data.queues.length > 0 && (
        <>
          <ProblemStrip queues={data.queues} />
          <TotalThroughput sparklines={sparklines.data} error={sparklines.error} />
          <form className="queue-view" role="search" onSubmit={(event) => event.preventDefault()}>
            <label>
              Sort by{' '}
              <select
                value={view.sort}
                onChange={(event) => setView({ ...view, sort: event.target.value as QueueSort })}
              >
                {QUEUE_SORTS.map((sort) => (
                  <option key={sort} value={sort}>
                    {QUEUE_SORT_LABELS[sort]}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Filter by name{' '}
              <input
                type="search"
                value={view.q}
                onChange={(event) => setView({ ...view, q: event.target.value })}
              />
            </label>
            {view.q !== '' && (
              <span aria-live="polite" data-testid="queue-filter-count">
                {formatCount(shown.length)} of {formatCount(data.queues.length)} queues match
              </span>
            )}
          </form>
          <div className="queue-grid">
            {shown.map((queue) => (
              <QueueCard
                key={`${queue.prefix}:${queue.name}`}
                queue={queue}
                sparklines={cardSparklines(
                  queue,
                  lineOf(queue),
                  sparklines.data !== undefined,
                  now,
                )}
              />
            ))}
          </div>
        </>
      )}
    </>
  );
}
