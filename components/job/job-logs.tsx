'use client';
import { formatCount } from '@/lib/format-number';
import { useState } from 'react';
import { useJobLogs, type JobRef } from './use-job';

const SIZES = [50, 200] as const;

/** The newest log lines, refreshed with the polling interval. */
export function JobLogs({ job }: { job: JobRef }) {
  const [pageSize, setPageSize] = useState<number>(SIZES[0]);
  const { data, error, isPending } = useJobLogs(job, pageSize);
  if (isPending) return <p aria-live="polite">Loading logs…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load logs: {error.message}
      </p>
    );
  }
  return (
    <>
      <p className="muted">
        {data.count === 0
          ? 'No log lines.'
          : `Showing the last ${formatCount(data.lines.length)} of ${formatCount(data.count)} lines.`}{' '}
        {data.count > data.lines.length && pageSize < SIZES[1] && (
          <button type="button" onClick={() => setPageSize(SIZES[1])}>
            Show the last {SIZES[1]}
          </button>
        )}
      </p>
      {data.lines.length > 0 && (
        <pre className="log-tail" aria-label="Log lines" tabIndex={0}>
          {data.lines.map((line) => (
            <div key={line.index}>
              <span className="muted">{line.index + 1}</span> {line.text}
            </div>
          ))}
        </pre>
      )}
    </>
  );
}
