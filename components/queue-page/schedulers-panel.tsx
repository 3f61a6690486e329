'use client';
/**
 * The queue's job schedulers, a page at a time (soonest next run first; paused ones lead): shown
 * only when the queue has any. Operators run one now (an ordinary job from its template), pause
 * and resume it, change its pattern or interval, or remove it.
 */
import { useState } from 'react';
import { formatCount } from '@/lib/format-number';
import { useCanMutate } from '../session/session-context';
import { SchedulerRowView } from './scheduler-row';
import { SCHEDULER_PAGE_SIZE, useSchedulerCommand, useSchedulers } from './use-schedulers';

export function SchedulersPanel({ prefix, name }: { prefix: string; name: string }) {
  const [page, setPage] = useState(1);
  const { data } = useSchedulers(prefix, name, page);
  const canOperate = useCanMutate('operator');
  const command = useSchedulerCommand(prefix, name);
  if (!data || data.total === 0) return null;
  const pages = Math.max(1, Math.ceil(data.total / SCHEDULER_PAGE_SIZE));
  return (
    <section className="panel" aria-labelledby="schedulers-heading">
      <h2 id="schedulers-heading">Job schedulers ({formatCount(data.total)})</h2>
      <table className="schedulers" data-testid="schedulers">
        <thead>
          <tr>
            <th scope="col">Scheduler</th>
            <th scope="col">Schedule</th>
            <th scope="col">Next run</th>
            <th scope="col">Created / limit</th>
            <th scope="col">Iterations</th>
            {canOperate && <th scope="col">Control</th>}
          </tr>
        </thead>
        <tbody>
          {data.schedulers.map((row) => (
            <SchedulerRowView
              key={row.id}
              row={row}
              canOperate={canOperate}
              busy={command.isPending}
              send={(next) => command.mutate(next)}
            />
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <div className="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {formatCount(page)} of {formatCount(pages)}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </div>
      )}
      {command.error && (
        <p role="alert" className="notice error">
          {command.error.message}
        </p>
      )}
      {command.isSuccess && command.data.jobId && (
        <p role="status" className="notice" data-testid="scheduler-run-result">
          Added job {command.data.jobId}.
        </p>
      )}
    </section>
  );
}
