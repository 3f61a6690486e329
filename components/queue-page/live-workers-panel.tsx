'use client';
/**
 * The queue's live OxMQ workers, from their heartbeats: host and pid, jobs in flight out of the
 * concurrency, done and failed since start, last beat. Operators quiet a worker (it finishes
 * what it runs and takes nothing new) and resume it; the command lands at its next heartbeat.
 * bullmq workers publish no heartbeat: the workers page shows them as connections.
 */
import Link from 'next/link';
import { formatCount } from '@/lib/format-number';
import { jobPageHref } from '../job/hrefs';
import { useCanMutate } from '../session/session-context';
import { useWorkerCommand, WorkerCommandOutcome } from '../workers/use-worker-command';
import { useWorkerHeartbeats } from './use-queue-page';

export function LiveWorkersPanel({ prefix, name }: { prefix: string; name: string }) {
  const { data } = useWorkerHeartbeats(prefix, name);
  const canOperate = useCanMutate('operator');
  const command = useWorkerCommand();
  const send = (workerId: string, verb: 'quiet' | 'resume') =>
    command.mutate({ prefix, name, workerId, verb });
  const workers = data?.workers ?? [];
  return (
    <section className="panel" aria-labelledby="live-workers-heading">
      <h2 id="live-workers-heading">Live workers</h2>
      {workers.length === 0 ? (
        <p>No OxMQ worker has sent a heartbeat for this queue.</p>
      ) : (
        <table className="live-workers" data-testid="live-workers">
          <thead>
            <tr>
              <th scope="col">Worker</th>
              <th scope="col">In flight</th>
              <th scope="col">Done / failed</th>
              <th scope="col">State</th>
              {canOperate && <th scope="col">Control</th>}
            </tr>
          </thead>
          <tbody>
            {workers.map((worker) => (
              <tr key={worker.id} data-worker-id={worker.id}>
                <td>
                  {worker.workerName ? `${worker.workerName} · ` : ''}
                  {worker.host}:{worker.pid}
                  <br />
                  <small>
                    OxMQ {worker.version}, beat{' '}
                    {new Date(worker.lastHeartbeat).toLocaleTimeString()}
                  </small>
                </td>
                <td>
                  {formatCount(worker.active)} / {formatCount(worker.concurrency)}
                  {worker.jobIds.slice(0, 5).map((id) => (
                    <span key={id}>
                      {' '}
                      <Link href={jobPageHref(prefix, name, id)}>{id}</Link>
                    </span>
                  ))}
                </td>
                <td>
                  {formatCount(worker.completed)} / {formatCount(worker.failed)}
                </td>
                <td data-testid="worker-state">
                  {worker.quiet ? 'quiet' : worker.paused ? 'paused' : 'running'}
                </td>
                {canOperate && (
                  <td>
                    <button
                      type="button"
                      disabled={command.isPending}
                      onClick={() => send(worker.id, worker.quiet ? 'resume' : 'quiet')}
                    >
                      {worker.quiet ? 'Resume' : 'Quiet'}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <WorkerCommandOutcome command={command} />
    </section>
  );
}
