'use client';
/** One state's jobs: paged table, selection and the bulk bar. */
import { formatCount } from '@/lib/format-number';
import { useState } from 'react';
import type { QueueCountState } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { BulkBar } from './bulk-bar';
import { ExportLinks } from './export-links';
import { JobTable } from './job-table';
import { useJobs } from './use-queue-page';

const PAGE_SIZE = 25;

export function JobList({
  prefix,
  name,
  state,
}: {
  prefix: string;
  name: string;
  state: QueueCountState;
}) {
  const canOperate = useCanMutate('operator');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const { data, error, isPending, dataUpdatedAt } = useJobs(prefix, name, state, page, PAGE_SIZE);
  if (isPending) return <p aria-live="polite">Loading jobs…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load jobs: {error.message}
      </p>
    );
  }
  const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
  const toggle = (id: string) =>
    setSelected((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const toggleAll = (ids: string[], on: boolean) =>
    setSelected((old) => {
      const next = new Set(old);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  return (
    <div id="jobs-panel" role="tabpanel" aria-labelledby={`tab-${state}`}>
      <BulkBar
        prefix={prefix}
        name={name}
        state={state}
        total={data.total}
        selected={[...selected]}
        onDone={() => setSelected(new Set())}
      />
      {data.total > 0 && (
        <ExportLinks
          prefix={prefix}
          name={name}
          state={state}
          // The list's own order: finished jobs newest first, the others oldest first.
          order={state === 'completed' || state === 'failed' ? 'newest' : 'oldest'}
          label={`Export ${state} jobs`}
        />
      )}
      {data.jobs.length === 0 ? (
        <p>No {state} jobs.</p>
      ) : (
        <JobTable
          prefix={prefix}
          name={name}
          jobs={data.jobs}
          now={dataUpdatedAt}
          // Checkboxes only for those who can act on a selection.
          selected={canOperate ? selected : undefined}
          onToggle={canOperate ? toggle : undefined}
          onToggleAll={canOperate ? toggleAll : undefined}
          caption={`${state} jobs, page ${formatCount(page)} of ${formatCount(pages)}`}
        />
      )}
      <nav className="pager" aria-label="Job pages">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous
        </button>
        <span>
          Page {formatCount(data.page)} of {formatCount(pages)} · {formatCount(data.total)} jobs
        </span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Next
        </button>
      </nav>
    </div>
  );
}
