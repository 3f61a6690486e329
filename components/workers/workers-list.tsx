'use client';
import { formatCount } from '@/lib/format-number';
import Link from 'next/link';
import type { QueueWorkerRoster } from '@/lib/api-types';
import { useWorkerCommand, WorkerCommandOutcome } from './use-worker-command';
import { useWorkers } from './use-workers';
import { WorkerRosterTable } from './worker-roster-table';

export function WorkersList() {
  const { data, error, isPending, dataUpdatedAt } = useWorkers();
  const command = useWorkerCommand();
  if (isPending) return <p aria-live="polite">Loading workers…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load workers: {error.message}
      </p>
    );
  }
  const connected = data.queues.reduce((sum, queue) => sum + queue.workers.length, 0);
  const workers = data.queues.reduce((sum, queue) => sum + queue.rows.length, 0);
  return (
    <>
      {!data.complete && (
        <p className="notice">
          Queue discovery stopped at its scan limit: some queues may be missing.
        </p>
      )}
      <p>
        {formatCount(workers)} {workers === 1 ? 'worker' : 'workers'} ({formatCount(connected)}{' '}
        {connected === 1 ? 'connection' : 'connections'}) across {formatCount(data.queues.length)}{' '}
        {data.queues.length === 1 ? 'queue' : 'queues'}
        {data.total > data.queues.length &&
          ` (showing ${formatCount(data.queues.length)} of ${formatCount(data.total)})`}
        . Workers are recognised by their Redis client names, as bullmq and Bull-Board do; OxMQ
        workers also by their heartbeats, which add what they run.
      </p>
      <WorkerCommandOutcome command={command} />
      {data.queues.length === 0 ? (
        <p>No queues found under the configured prefixes.</p>
      ) : (
        data.queues.map((queue) => (
          <QueueWorkersTable
            key={`${queue.prefix}:${queue.name}`}
            queue={queue}
            command={command}
            now={dataUpdatedAt}
          />
        ))
      )}
    </>
  );
}

function QueueWorkersTable({
  queue,
  command,
  now,
}: {
  queue: QueueWorkerRoster;
  command: ReturnType<typeof useWorkerCommand>;
  now: number;
}) {
  const headingId = `workers-${queue.prefix}-${queue.name}`;
  const count = queue.rows.length;
  return (
    <section className="card workers-card" aria-labelledby={headingId} data-queue={queue.name}>
      <div className="card-head">
        <h2 id={headingId}>
          <span className="prefix">{queue.prefix}:</span>
          {queue.name}
        </h2>
        <span className={`badge ${count === 0 ? 'paused' : 'ok'}`}>
          {formatCount(count)} {count === 1 ? 'worker' : 'workers'}
        </span>
        <Link
          className="card-link"
          href={`/metrics/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`}
        >
          Metrics<span className="visually-hidden"> of {queue.name}</span>
        </Link>
      </div>
      {count === 0 ? (
        <p className="muted">No worker is connected: jobs of this queue are not being processed.</p>
      ) : (
        <WorkerRosterTable queue={queue} command={command} now={now} />
      )}
      {queue.heartbeatTotal > queue.rows.filter((row) => row.kind === 'oxmq').length && (
        <p className="muted">
          {formatCount(queue.heartbeatTotal)} heartbeat index entries: the most recent{' '}
          {formatCount(queue.rows.filter((row) => row.kind === 'oxmq').length)} live ones are shown
          (the others expired or were cut).
        </p>
      )}
    </section>
  );
}
