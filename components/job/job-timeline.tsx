'use client';
import type { JobTimelineEntry } from '@/lib/api-types';
import { useJobTimeline, type JobRef } from './use-job';

function describe(entry: JobTimelineEntry): string {
  if (entry.event === 'delayed' && entry.detail) {
    return `until ${new Date(Number(entry.detail)).toLocaleTimeString()}`;
  }
  if (entry.event === 'retries-exhausted' && entry.detail) return `after ${entry.detail} attempts`;
  return entry.detail ?? '';
}

/** The lifecycle across attempts, oldest first, from the events stream (bounded) and the hash. */
export function JobTimeline({ job }: { job: JobRef }) {
  const { data, error, isPending } = useJobTimeline(job);
  if (isPending) return <p aria-live="polite">Loading timeline…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load the timeline: {error.message}
      </p>
    );
  }
  return (
    <>
      {!data.reachesCreation && (
        <p className="notice" data-testid="timeline-partial">
          {data.capped
            ? `The timeline stopped after ${data.scanned} stream entries: older steps are not shown.`
            : "The queue's events stream no longer reaches back to this job's creation: older steps are missing."}
        </p>
      )}
      <ol className="timeline" aria-label="Lifecycle timeline">
        {data.entries.map((entry) => (
          <li
            key={`${entry.id}-${entry.event}`}
            data-event={entry.event}
            data-source={entry.source}
          >
            <span className={`badge state-${entry.event}`}>{entry.event}</span>
            {entry.prev && <span className="muted"> from {entry.prev}</span>}
            {entry.attempt > 0 && <span className="muted"> · attempt {entry.attempt}</span>}
            <time dateTime={new Date(entry.at).toISOString()}>
              {' '}
              · {new Date(entry.at).toLocaleString()}
            </time>
            {describe(entry) && <span className="timeline-detail"> · {describe(entry)}</span>}
            {entry.source === 'hash' && <span className="muted"> (from the job hash)</span>}
          </li>
        ))}
      </ol>
    </>
  );
}
