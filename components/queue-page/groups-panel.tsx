'use client';
/**
 * The queue's tenant groups, 50 at a time in id order through the engine's getGroups cursor
 * (Previous keeps the cursors already seen): shown only when the queue has groups. Limits shown
 * are the effective ones (the group's own, else the queue default). A group's name opens its
 * jobs below its row. Operators pause / resume a group and set or clear its concurrency and
 * rate limit.
 */
import { Fragment, useState } from 'react';
import { formatCount } from '@/lib/format-number';
import { useCanMutate } from '../session/session-context';
import { GroupJobs } from './group-jobs';
import { GroupLimitsForm } from './group-limits-form';
import { GROUP_PAGE_SIZE, useGroupCommand, useGroups } from './use-groups';

export function GroupsPanel({ prefix, name }: { prefix: string; name: string }) {
  // cursors[i] opens page i; '' is the first page.
  const [cursors, setCursors] = useState<string[]>(['']);
  const [selected, setSelected] = useState<string | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1] ?? '';
  const { data } = useGroups(prefix, name, cursor);
  const canOperate = useCanMutate('operator');
  const command = useGroupCommand(prefix, name);
  if (!data || (data.groups.length === 0 && cursors.length === 1)) return null;
  const { defaults } = data;
  return (
    <section className="panel" aria-labelledby="groups-heading">
      <h2 id="groups-heading">Tenant groups</h2>
      <p>
        <small>
          Queue defaults: concurrency {defaults.concurrency ?? 'none'}, rate limit{' '}
          {defaults.rateLimit
            ? `${formatCount(defaults.rateLimit.max)} per ${formatCount(defaults.rateLimit.duration)} ms`
            : 'none'}
        </small>
      </p>
      <table className="groups" data-testid="groups">
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Waiting</th>
            <th scope="col">Active</th>
            <th scope="col">Concurrency</th>
            <th scope="col">Rate limit</th>
            <th scope="col">State</th>
            {canOperate && <th scope="col">Control</th>}
          </tr>
        </thead>
        <tbody>
          {data.groups.map((group) => (
            <Fragment key={group.id}>
              <tr data-group-id={group.id}>
                <td>
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={opened === group.id}
                    onClick={() => setOpened(opened === group.id ? null : group.id)}
                  >
                    {opened === group.id ? '▾' : '▸'} {group.id}
                  </button>
                </td>
                <td>{formatCount(group.waiting)}</td>
                <td>{formatCount(group.active)}</td>
                <td>{group.concurrency === null ? 'none' : formatCount(group.concurrency)}</td>
                <td>
                  {group.rateLimit
                    ? `${formatCount(group.rateLimit.max)} per ${formatCount(group.rateLimit.duration)} ms`
                    : 'none'}
                </td>
                <td data-testid="group-state">{group.paused ? 'paused' : 'running'}</td>
                {canOperate && (
                  <td>
                    <div className="action-row">
                      <button
                        type="button"
                        disabled={command.isPending}
                        onClick={() =>
                          command.mutate({ id: group.id, verb: group.paused ? 'resume' : 'pause' })
                        }
                      >
                        {group.paused ? 'Resume' : 'Pause'}
                      </button>
                      <button type="button" onClick={() => setSelected(group.id)}>
                        Limits…
                      </button>
                    </div>
                  </td>
                )}
              </tr>
              {opened === group.id && (
                <tr data-group-jobs-of={group.id}>
                  <td colSpan={canOperate ? 7 : 6}>
                    <GroupJobs prefix={prefix} name={name} groupId={group.id} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      <div className="pager">
        <button
          type="button"
          disabled={cursors.length <= 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous
        </button>
        <span>
          Page {formatCount(cursors.length)} ({formatCount(GROUP_PAGE_SIZE)} per page)
        </span>
        <button
          type="button"
          disabled={data.cursor === ''}
          onClick={() => setCursors([...cursors, data.cursor])}
        >
          Next
        </button>
      </div>
      {canOperate && selected !== null && (
        <GroupLimitsForm groupId={selected} busy={command.isPending} send={command.mutate} />
      )}
      {command.error && (
        <p role="alert" className="notice error">
          {command.error.message}
        </p>
      )}
    </section>
  );
}
