'use client';
/**
 * One job scheduler in the schedulers panel: its schedule, next run, runs against its limit, the
 * last iteration found and its state; operators run it now, pause / resume, edit, remove.
 */
import { useState } from 'react';
import type { SchedulerIteration, SchedulerRow } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { roleOfAction } from '@/lib/permissions';
import { useCanMutate } from '../session/session-context';
import { formatEvery } from './format-every';
import { SchedulerEditForm } from './scheduler-edit-form';
import type { SchedulerCommand } from './use-schedulers';

function schedule(row: SchedulerRow): string {
  if (row.every !== null) return formatEvery(row.every);
  return row.pattern ?? '–';
}

function iterationText(iteration: SchedulerIteration | null): string {
  return iteration ? `${iteration.jobId} (${iteration.state})` : 'not found';
}

export function SchedulerRowView({
  row,
  canOperate,
  busy,
  send,
}: {
  row: SchedulerRow;
  canOperate: boolean;
  busy: boolean;
  send: (command: SchedulerCommand) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const canRemove = useCanMutate(roleOfAction('scheduler.remove'));
  const runs = row.iterationCount === null ? '–' : formatCount(row.iterationCount);
  return (
    <tr data-scheduler-id={row.id}>
      <td>
        <strong>{row.id}</strong>
        <br />
        <small>job name {row.name}</small>
      </td>
      <td data-testid="scheduler-schedule">
        {schedule(row)}
        {row.tz && (
          <>
            <br />
            <small>{row.tz}</small>
          </>
        )}
      </td>
      <td data-testid="scheduler-next">
        {row.paused ? (
          <span className="badge paused">Paused</span>
        ) : row.next === null || row.pending === null ? (
          'none pending'
        ) : (
          <time dateTime={new Date(row.next).toISOString()}>
            {new Date(row.next).toLocaleString()}
          </time>
        )}
      </td>
      <td>
        {runs}
        {row.limit !== null && <> / {formatCount(row.limit)} limit</>}
        {row.endDate !== null && (
          <>
            <br />
            <small>until {new Date(row.endDate).toLocaleString()}</small>
          </>
        )}
      </td>
      <td data-testid="scheduler-last">
        <small>
          last: {iterationText(row.previous)}
          <br />
          pending: {row.pending ? `${row.pending.jobId} (${row.pending.state})` : 'none'}
        </small>
      </td>
      {canOperate && (
        <td>
          {/* The flex row sits inside the cell: a flex td would leave the table's layout. */}
          <div className="action-row">
            <button type="button" disabled={busy} onClick={() => send({ id: row.id, verb: 'run' })}>
              Run now
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => send({ id: row.id, verb: row.paused ? 'resume' : 'pause' })}
            >
              {row.paused ? 'Resume' : 'Pause'}
            </button>
            {!row.paused && (
              <button type="button" disabled={busy} onClick={() => setEditing(!editing)}>
                Edit
              </button>
            )}
            {!canRemove ? null : confirmRemove ? (
              <>
                <button
                  type="button"
                  className="danger"
                  disabled={busy}
                  onClick={() => send({ id: row.id, verb: 'remove' })}
                >
                  Confirm remove {row.id}
                </button>
                <button type="button" onClick={() => setConfirmRemove(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button type="button" className="danger" onClick={() => setConfirmRemove(true)}>
                Remove
              </button>
            )}
          </div>
          {editing && (
            <SchedulerEditForm
              row={row}
              busy={busy}
              onSubmit={(body) => {
                send({ id: row.id, verb: 'repeat', body });
                setEditing(false);
              }}
            />
          )}
        </td>
      )}
    </tr>
  );
}
