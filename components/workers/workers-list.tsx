'use client';
import { formatCount } from '@/lib/format-number';
import Link from 'next/link';
import type { QueueWorkers } from '@/lib/api-types';
import { formatSeconds } from './duration';
import { useWorkers } from './use-workers';

export function WorkersList() {
  const { data, error, isPending } = useWorkers();
  if (isPending) return <p aria-live="polite">Loading workers…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load workers: {error.message}
      </p>
    );
  }
  const connected = data.queues.reduce((sum, queue) => sum + queue.workers.length, 0);
  return (
    <>
      {!data.complete && (
        <p className="notice">
          Queue discovery stopped at its scan limit: some queues may be missing.
        </p>
      )}
      <p>
        {formatCount(connected)} {connected === 1 ? 'connection' : 'connections'} across{' '}
        {formatCount(data.queues.length)} {data.queues.length === 1 ? 'queue' : 'queues'}
        {data.total > data.queues.length &&
          ` (showing ${formatCount(data.queues.length)} of ${formatCount(data.total)})`}
        . Workers are recognised by their Redis client names, as bullmq and Bull-Board do.
      </p>
      {data.queues.length === 0 ? (
        <p>No queues found under the configured prefixes.</p>
      ) : (
        data.queues.map((queue) => (
          <QueueWorkersTable key={`${queue.prefix}:${queue.name}`} queue={queue} />
        ))
      )}
    </>
  );
}

function QueueWorkersTable({ queue }: { queue: QueueWorkers }) {
  const headingId = `workers-${queue.prefix}-${queue.name}`;
  return (
    <section className="card workers-card" aria-labelledby={headingId} data-queue={queue.name}>
      <div className="card-head">
        <h2 id={headingId}>
          <span className="prefix">{queue.prefix}:</span>
          {queue.name}
        </h2>
        <span className={`badge ${queue.workers.length === 0 ? 'paused' : 'ok'}`}>
          {formatCount(queue.workers.length)} {queue.workers.length === 1 ? 'worker' : 'workers'}
        </span>
        <Link
          className="card-link"
          href={`/metrics/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`}
        >
          Metrics<span className="visually-hidden"> of {queue.name}</span>
        </Link>
      </div>
      {queue.workers.length === 0 ? (
        <p className="muted">No worker is connected: jobs of this queue are not being processed.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Workers of {queue.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Address</th>
                <th scope="col">Connected for</th>
                <th scope="col">Idle</th>
                <th scope="col">Client id</th>
              </tr>
            </thead>
            <tbody>
              {queue.workers.map((worker) => (
                <tr key={worker.id} data-worker={worker.workerName ?? ''}>
                  <td>{worker.workerName ?? <span className="muted">(unnamed)</span>}</td>
                  <td>
                    <code>{worker.addr}</code>
                  </td>
                  <td>{formatSeconds(worker.age)}</td>
                  <td>{formatSeconds(worker.idle)}</td>
                  <td>{worker.id}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
