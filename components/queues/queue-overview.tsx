'use client';
import { QueueCard } from './queue-card';
import { useQueues } from './use-queues';

export function QueueOverviewList() {
  const { data, error, isPending } = useQueues();
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
      {!data.complete && (
        <p className="notice">
          Queue discovery stopped at its scan limit: some queues may be missing.
        </p>
      )}
      {data.total > data.queues.length && (
        <p className="notice">
          Showing {data.queues.length} of {data.total} queues.
        </p>
      )}
      {data.queues.length === 0 ? (
        <p>No queues found under the configured prefixes.</p>
      ) : (
        <div className="queue-grid">
          {data.queues.map((queue) => (
            <QueueCard key={`${queue.prefix}:${queue.name}`} queue={queue} />
          ))}
        </div>
      )}
    </>
  );
}
