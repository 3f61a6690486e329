'use client';
import { grafanaOverviewHref } from '@/lib/links';
import { ExternalLink } from '../layout/external-link';
import { useConsoleLinks } from '../session/session-context';
import { DiscoveryNotices } from './discovery-notices';
import { QueueCard } from './queue-card';
import { useQueues } from './use-queues';

export function QueueOverviewList() {
  const { data, error, isPending } = useQueues();
  const dashboard = grafanaOverviewHref(useConsoleLinks().grafanaUrl);
  if (isPending) return <p aria-live="polite">Loading queues…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load queues: {error.message}
      </p>
    );
  }
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
        <div className="queue-grid">
          {data.queues.map((queue) => (
            <QueueCard key={`${queue.prefix}:${queue.name}`} queue={queue} />
          ))}
        </div>
      )}
    </>
  );
}
