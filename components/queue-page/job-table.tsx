'use client';
import { formatCount } from '@/lib/format-number';
import Link from 'next/link';
import type { JobRow } from '@/lib/api-types';
import { formatDuration, formatProgress } from './format';

export function jobHref(prefix: string, name: string, id: string): string {
  return `/queues/${encodeURIComponent(prefix)}/${encodeURIComponent(name)}/jobs/${encodeURIComponent(id)}`;
}

/** The job table; with `selected` set it offers a checkbox per row and one for the page. */
export function JobTable({
  prefix,
  name,
  jobs,
  now,
  selected,
  onToggle,
  onToggleAll,
  caption,
}: {
  prefix: string;
  name: string;
  jobs: JobRow[];
  now: number;
  selected?: ReadonlySet<string>;
  onToggle?: (id: string) => void;
  onToggleAll?: (ids: string[], on: boolean) => void;
  caption: string;
}) {
  const selectable = selected !== undefined && onToggle !== undefined;
  const allOn = selectable && jobs.length > 0 && jobs.every((job) => selected.has(job.id));
  return (
    <table className="job-table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {selectable && (
            <th scope="col">
              <input
                type="checkbox"
                aria-label="Select all jobs on this page"
                checked={allOn}
                onChange={() =>
                  onToggleAll?.(
                    jobs.map((job) => job.id),
                    !allOn,
                  )
                }
              />
            </th>
          )}
          <th scope="col">Id</th>
          <th scope="col">Name</th>
          <th scope="col">Age</th>
          <th scope="col">Attempts</th>
          <th scope="col">Progress</th>
          <th scope="col">Duration</th>
        </tr>
      </thead>
      <tbody>
        {jobs.map((job) => (
          <tr key={job.id} data-job-id={job.id}>
            {selectable && (
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select job ${job.id}`}
                  checked={selected.has(job.id)}
                  onChange={() => onToggle(job.id)}
                />
              </td>
            )}
            <td>
              <Link href={jobHref(prefix, name, job.id)}>
                <code>{job.id}</code>
              </Link>
            </td>
            <td>{job.name}</td>
            <td title={new Date(job.timestamp).toISOString()}>
              {formatDuration(Math.max(0, now - job.timestamp))}
            </td>
            <td>{formatCount(job.attemptsMade)}</td>
            <td>{formatProgress(job.progress)}</td>
            <td>
              {job.processedOn !== null && job.finishedOn !== null
                ? formatDuration(job.finishedOn - job.processedOn)
                : '–'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
