'use client';
/**
 * The jobs of one tenant group, opened from its row of the groups panel: its line, next to run
 * first and paged, and the jobs it runs now, each linking to its job page. Delayed jobs of a
 * group are listed in the queue's Delayed tab (they are not kept per group).
 */
import Link from 'next/link';
import { useState } from 'react';
import type { JobRow } from '@/lib/api-types';
import { formatCount } from '@/lib/format-number';
import { jobPageHref } from '../job/hrefs';
import { GROUP_JOBS_PAGE_SIZE, useGroupJobs } from './use-groups';

function JobLinks({ prefix, name, jobs }: { prefix: string; name: string; jobs: JobRow[] }) {
  return (
    <ol className="group-job-list">
      {jobs.map((job) => (
        <li key={job.id}>
          <Link href={jobPageHref(prefix, name, job.id)}>
            #{job.id} {job.name}
          </Link>
        </li>
      ))}
    </ol>
  );
}

export function GroupJobs({
  prefix,
  name,
  groupId,
}: {
  prefix: string;
  name: string;
  groupId: string;
}) {
  const [page, setPage] = useState(1);
  const { data, error } = useGroupJobs(prefix, name, groupId, page);
  if (error) {
    return (
      <p role="alert" className="notice error">
        {error.message}
      </p>
    );
  }
  if (!data) return <p>Loading the jobs of {groupId}…</p>;
  const pages = Math.max(1, Math.ceil(data.waitingTotal / GROUP_JOBS_PAGE_SIZE));
  return (
    <div className="group-jobs" data-testid="group-jobs">
      <h3>Waiting in line ({formatCount(data.waitingTotal)}), next to run first</h3>
      {data.waiting.length === 0 ? (
        <p>No job waits in this group.</p>
      ) : (
        <JobLinks prefix={prefix} name={name} jobs={data.waiting} />
      )}
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
      <h3>Running ({formatCount(data.activeTotal)})</h3>
      {data.active.length === 0 ? (
        <p>None running now.</p>
      ) : (
        <JobLinks prefix={prefix} name={name} jobs={data.active} />
      )}
      <p>
        <small>Delayed jobs of the group are in the queue&apos;s Delayed tab.</small>
      </p>
    </div>
  );
}
