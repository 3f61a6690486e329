'use client';
import { formatCount } from '@/lib/format-number';
import Link from 'next/link';
import type { JobDetailResponse, JobLinkRef } from '@/lib/api-types';
import { ExternalLink } from '../layout/external-link';
import { JobActions } from './job-actions';
import { JobCancelStatus } from './job-cancel-status';
import { JobLogs } from './job-logs';
import { JobTimeline } from './job-timeline';
import { JsonTree } from './json-tree';
import { ProgressBar } from './progress-bar';
import { flowPageHref, jobPageHref } from './hrefs';
import { useJob, type JobRef } from './use-job';

function when(ms: number | null): string {
  return ms === null ? '—' : new Date(ms).toLocaleString();
}

function JobLink({ link }: { link: JobLinkRef }) {
  return (
    <Link href={jobPageHref(link.prefix, link.queueName, link.id)}>
      <code>
        {link.queueName}:{link.id}
      </code>
    </Link>
  );
}

/** The trace id, a link to the trace viewer when OXMQ_TRACE_URL is set. */
function TraceId({ traceId, traceUrl }: { traceId: string | null; traceUrl: string | null }) {
  if (!traceId) return <>—</>;
  const id = <code data-testid="trace-id">{traceId}</code>;
  return traceUrl ? (
    <ExternalLink href={traceUrl} testId="trace-link">
      {id}
    </ExternalLink>
  ) : (
    id
  );
}

function Children({ detail }: { detail: JobDetailResponse }) {
  const { children } = detail;
  const kinds = ['unprocessed', 'processed', 'failed', 'ignored'] as const;
  const total = kinds.reduce((sum, kind) => sum + children.counts[kind], 0);
  if (total === 0) return <p>No children.</p>;
  return (
    <ul className="children">
      {kinds
        .filter((kind) => children.counts[kind] > 0)
        .map((kind) => (
          <li key={kind}>
            {kind} ({children.counts[kind]}):{' '}
            {children[kind].map((link) => (
              <span key={link.key}>
                <JobLink link={link} />{' '}
              </span>
            ))}
            {children.counts[kind] > children[kind].length && <span className="muted">…</span>}
          </li>
        ))}
    </ul>
  );
}

export function JobView({ job }: { job: JobRef }) {
  const { data, error, isPending } = useJob(job);
  if (isPending) return <p aria-live="polite">Loading job…</p>;
  if (error) {
    return (
      <p role="alert" className="notice error">
        Could not load job {job.id}: {error.message}
      </p>
    );
  }
  const inFlow =
    data.parent !== null || Object.values(data.children.counts).some((count) => count > 0);
  return (
    <>
      <div className="job-head">
        <span className={`badge state-${data.state}`} data-testid="job-state">
          {data.state}
        </span>
        <span>
          <strong>{data.name}</strong> · attempts {formatCount(data.attemptsMade)} made /{' '}
          {formatCount(data.attemptsStarted)} started
        </span>
        <ProgressBar progress={data.progress} />
      </div>
      <JobCancelStatus job={job} detail={data} />
      <div className="job-grid">
        <section className="card" aria-labelledby="job-facts">
          <h2 id="job-facts">Job</h2>
          <dl className="facts">
            <dt>Added</dt>
            <dd>{when(data.timestamp)}</dd>
            <dt>Processed</dt>
            <dd>{when(data.processedOn)}</dd>
            <dt>Finished</dt>
            <dd>{when(data.finishedOn)}</dd>
            <dt>Priority</dt>
            <dd>{data.priority}</dd>
            <dt>Delay</dt>
            <dd>{data.delay} ms</dd>
            <dt>Trace id</dt>
            <dd>
              <TraceId traceId={data.traceId} traceUrl={data.traceUrl} />
            </dd>
            <dt>Parent</dt>
            <dd>{data.parent ? <JobLink link={data.parent} /> : '—'}</dd>
          </dl>
          {inFlow && (
            <p>
              <Link href={flowPageHref(job.prefix, job.name, job.id)}>Show the flow graph</Link>
            </p>
          )}
          <h3>Children</h3>
          <Children detail={data} />
        </section>
        <JobActions job={job} detail={data} />
      </div>
      {data.failedReason !== null && (
        <section className="card" aria-labelledby="job-failure">
          <h2 id="job-failure">Failure</h2>
          <p className="notice error" data-testid="failed-reason">
            {data.failedReason}
          </p>
          {data.stacktrace.length > 0 && (
            <details>
              <summary>Stack traces ({formatCount(data.stacktrace.length)})</summary>
              {data.stacktrace.map((trace, i) => (
                <pre key={i} className="stacktrace">
                  {trace}
                </pre>
              ))}
            </details>
          )}
        </section>
      )}
      <div className="job-grid">
        <section className="card" aria-labelledby="job-data">
          <h2 id="job-data">Data</h2>
          <JsonTree value={data.data} label="Job data" />
        </section>
        <section className="card" aria-labelledby="job-return">
          <h2 id="job-return">Return value</h2>
          <JsonTree value={data.returnvalue} label="Return value" />
        </section>
        <section className="card" aria-labelledby="job-opts">
          <h2 id="job-opts">Options</h2>
          <JsonTree value={data.opts} label="Job options" openDepth={1} />
        </section>
      </div>
      <p className="muted">
        Values under keys like {data.redactedKeys.slice(0, 4).join(', ')} … are redacted by the
        server.
      </p>
      <div className="job-grid">
        <section className="card" aria-labelledby="job-timeline">
          <h2 id="job-timeline">Timeline</h2>
          <JobTimeline job={job} />
        </section>
        <section className="card" aria-labelledby="job-logs">
          <h2 id="job-logs">Logs</h2>
          <JobLogs job={job} />
        </section>
      </div>
    </>
  );
}
