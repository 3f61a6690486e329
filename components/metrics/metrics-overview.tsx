'use client';
import Link from 'next/link';
import { DiscoveryNotices } from '../queues/discovery-notices';
import { ThroughputChart } from './throughput-chart';
import { useMetricsList } from './use-metrics';

const MINUTES = 60;

export function MetricsOverview() {
  const { data, error, isPending } = useMetricsList(MINUTES);
  if (isPending) return <p aria-live="polite">Loading metrics…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load metrics: {error.message}
      </p>
    );
  }
  return (
    <>
      <DiscoveryNotices complete={data.complete} shown={data.queues.length} total={data.total} />
      <div className="metrics-grid">
        {data.queues.map((queue) => {
          const headingId = `metrics-${queue.prefix}-${queue.name}`;
          return (
            <section
              key={`${queue.prefix}:${queue.name}`}
              className="card"
              aria-labelledby={headingId}
              data-queue={queue.name}
            >
              <div className="card-head">
                <h2 id={headingId}>
                  <span className="prefix">{queue.prefix}:</span>
                  {queue.name}
                </h2>
                <Link
                  className="card-link"
                  href={`/metrics/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`}
                >
                  Details<span className="visually-hidden"> of {queue.name}</span>
                </Link>
              </div>
              <ThroughputChart metrics={queue} minutes={data.minutes} height={180} />
            </section>
          );
        })}
      </div>
    </>
  );
}
