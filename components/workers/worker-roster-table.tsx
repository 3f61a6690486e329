'use client';
/**
 * One queue's workers, one row each: an OxMQ worker with its heartbeat (host, pid, version, jobs
 * in flight linked to their pages, counters, last beat, state) and the connection CLIENT LIST
 * shows for it; a worker that sends no heartbeat (bullmq, or OxMQ with heartbeats off) with its
 * connection alone. Operators quiet / resume OxMQ workers here as on the queue page.
 */
import Link from 'next/link';
import type { QueueWorkerRoster, WorkerRosterRow } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { jobPageHref } from '../job/hrefs';
import { useCanMutate } from '../session/session-context';
import { formatSeconds } from './duration';
import type { useWorkerCommand, WorkerCommand } from './use-worker-command';

/** Jobs in flight linked from a row; the count is always shown in full. */
const LISTED_JOBS = 5;

export function WorkerRosterTable({
  queue,
  command,
  now,
}: {
  queue: QueueWorkerRoster;
  command: ReturnType<typeof useWorkerCommand>;
  now: number;
}) {
  const canOperate = useCanMutate('operator');
  const send = (workerId: string, verb: WorkerCommand['verb']) =>
    command.mutate({ prefix: queue.prefix, name: queue.name, workerId, verb });
  return (
    <div className="table-scroll">
      <table className="worker-roster">
        <caption className="visually-hidden">Workers of {queue.name}</caption>
        <thead>
          <tr>
            <th scope="col">Worker</th>
            <th scope="col">Host · pid</th>
            <th scope="col">Version</th>
            <th scope="col">In flight</th>
            <th scope="col">Done / failed</th>
            <th scope="col">Started</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col">Lock renewal failures</th>
            <th scope="col">State</th>
            <th scope="col">Connection</th>
            {canOperate && <th scope="col">Control</th>}
          </tr>
        </thead>
        <tbody>
          {queue.rows.map((row, index) => (
            <RosterRow
              key={row.heartbeat?.id ?? row.connections[0]?.id ?? index}
              row={row}
              queue={queue}
              now={now}
              control={
                canOperate ? (
                  <td>
                    {row.heartbeat && (
                      <button
                        type="button"
                        disabled={command.isPending}
                        onClick={() =>
                          send(row.heartbeat!.id, row.heartbeat!.quiet ? 'resume' : 'quiet')
                        }
                      >
                        {row.heartbeat.quiet ? 'Resume' : 'Quiet'}
                        <span className="visually-hidden">
                          {' '}
                          worker {row.workerName ?? row.heartbeat.id}
                        </span>
                      </button>
                    )}
                  </td>
                ) : null
              }
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RosterRow({
  row,
  queue,
  now,
  control,
}: {
  row: WorkerRosterRow;
  queue: QueueWorkerRoster;
  now: number;
  control: React.ReactNode;
}) {
  const hb = row.heartbeat;
  const name = row.workerName ?? <span className="muted">(unnamed)</span>;
  const none = <span className="muted">—</span>;
  return (
    <tr
      data-worker={row.workerName ?? ''}
      data-kind={row.kind}
      {...(hb && { 'data-worker-id': hb.id })}
    >
      <td>
        {name}
        <br />
        {hb ? (
          <small className="badge ok">OxMQ</small>
        ) : (
          <small className="badge paused" data-testid="no-heartbeat">
            bullmq (no heartbeat)
          </small>
        )}
      </td>
      <td>{hb ? `${hb.host} · ${hb.pid}` : none}</td>
      <td>{hb ? hb.version : none}</td>
      <td data-testid="in-flight">
        {hb ? (
          <>
            {formatCount(hb.active)} / {formatCount(hb.concurrency)}
            {hb.jobIds.slice(0, LISTED_JOBS).map((id) => (
              <span key={id}>
                {' '}
                <Link href={jobPageHref(queue.prefix, queue.name, id)}>{id}</Link>
              </span>
            ))}
            {hb.active > LISTED_JOBS && ' …'}
          </>
        ) : (
          none
        )}
      </td>
      <td>{hb ? `${formatCount(hb.completed)} / ${formatCount(hb.failed)}` : none}</td>
      <td>
        {hb ? (
          <time dateTime={new Date(hb.startedAt).toISOString()}>
            {formatSeconds((now - hb.startedAt) / 1000)} ago
          </time>
        ) : (
          none
        )}
      </td>
      <td data-testid="last-heartbeat">
        {hb ? `${formatSeconds(Math.max(0, now - hb.lastHeartbeat) / 1000)} ago` : none}
      </td>
      <td>{hb ? formatCount(hb.lockRenewalFailures) : none}</td>
      <td data-testid="worker-state">
        {hb ? (hb.quiet ? 'quiet' : hb.paused ? 'paused' : 'running') : none}
      </td>
      <td>
        {row.connections.length === 0
          ? none
          : row.connections.map((connection) => (
              <span key={connection.id} title={`client id ${connection.id}`}>
                <code>{connection.addr}</code> · up {formatSeconds(connection.age)}, idle{' '}
                {formatSeconds(connection.idle)}
                {row.matchedBy === 'name' && <small className="muted"> (matched by name)</small>}
                <br />
              </span>
            ))}
      </td>
      {control}
    </tr>
  );
}
