'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { jobActionOffered, type JobActionKind } from 'oxmq/admin';
import type { JobCancelResponse, JobDetailResponse } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { jobPageHref } from './hrefs';
import { useJobAction, type JobActionName, type JobRef } from './use-job';

/** What a cancel request reached, in words (the API's outcome). */
const CANCEL_OUTCOME: Record<JobCancelResponse['outcome'], string> = {
  requested:
    'Cancellation sent: the worker running this job is told now; once its processor stops, the job fails as cancelled, without a retry.',
  'not-active': 'The job is not running any more; nothing to cancel.',
  'held-by-bullmq':
    'Cannot cancel: the job is held by a bullmq worker (or one without heartbeats), which cannot be reached from here.',
};

/** The tenant group a job belongs to (its `group` option), if any: such a job has no priority. */
function groupOf(opts: Record<string, unknown>): string | undefined {
  const group = opts.group as { id?: unknown } | undefined;
  return typeof group?.id === 'string' ? group.id : undefined;
}

/**
 * The job's actions, offered by role (viewer none; operator retry, promote, priority, delay,
 * duplicate, cancel a running job; admin also remove and edit data) and by state, from the
 * server's own table (engine/admin/job-action-states.ts). When the job moved since the page
 * read it, the API's refusal says what it is doing now and what to do instead.
 */
export function JobActions({ job, detail }: { job: JobRef; detail: JobDetailResponse }) {
  const canOperate = useCanMutate('operator');
  const isAdmin = useCanMutate('admin');
  const action = useJobAction(job);
  const router = useRouter();
  const [message, setMessage] = useState<string | null>(null);
  const [priority, setPriority] = useState(String(detail.priority));
  const [delay, setDelay] = useState('0');
  if (!canOperate) return null;

  const run = (name: JobActionName, body: unknown = {}, done?: string) => {
    setMessage(null);
    action.mutate(
      { action: name, body },
      {
        onSuccess: (result) => {
          if (name === 'remove') {
            router.push(
              `/queues/${encodeURIComponent(job.prefix)}/${encodeURIComponent(job.name)}`,
            );
            return;
          }
          if (name === 'cancel' && result.outcome) {
            setMessage(CANCEL_OUTCOME[result.outcome]);
            return;
          }
          if (name === 'duplicate' && result.id) {
            setMessage(`Added a copy as job ${result.id}.`);
            router.push(jobPageHref(job.prefix, job.name, result.id));
            return;
          }
          setMessage(done ?? 'Done.');
        },
      },
    );
  };
  const submitNumber = (event: FormEvent, name: 'priority' | 'delay', text: string) => {
    event.preventDefault();
    run(name, { [name]: Number(text) }, `${name === 'priority' ? 'Priority' : 'Delay'} changed.`);
  };
  const offered = (name: JobActionKind) => jobActionOffered(name, detail.state);
  const grouped = groupOf(detail.opts) !== undefined;
  const showPriority = offered('priority') && !grouped;

  return (
    <section aria-labelledby="job-actions" className="card job-actions">
      <h2 id="job-actions">Actions</h2>
      <div className="actions-row">
        {offered('retry') && (
          <button
            type="button"
            className="primary"
            disabled={action.isPending}
            onClick={() => run('retry', {}, 'Retrying.')}
          >
            Retry
          </button>
        )}
        {detail.state === 'active' && (
          <button
            type="button"
            className="danger"
            disabled={action.isPending}
            onClick={() => {
              if (window.confirm(`Cancel running job ${job.id}?`)) run('cancel', {});
            }}
          >
            Cancel
          </button>
        )}
        {offered('promote') && (
          <button
            type="button"
            disabled={action.isPending}
            onClick={() => run('promote', {}, 'Promoted.')}
          >
            Promote
          </button>
        )}
        <button type="button" disabled={action.isPending} onClick={() => run('duplicate')}>
          Duplicate
        </button>
        {isAdmin && offered('remove') && (
          <button
            type="button"
            className="danger"
            disabled={action.isPending}
            onClick={() => {
              if (window.confirm(`Remove job ${job.id}? This cannot be undone.`)) run('remove');
            }}
          >
            Remove
          </button>
        )}
      </div>
      {detail.state === 'active' && (
        <p className="muted" data-testid="actions-note">
          A worker is running this job: it can be cancelled, but not removed, retried or rescheduled
          until it stops.
        </p>
      )}
      {(showPriority || offered('delay')) && (
        <div className="actions-row">
          {showPriority && (
            <form onSubmit={(event) => submitNumber(event, 'priority', priority)}>
              <label>
                Priority{' '}
                <input
                  type="number"
                  min={0}
                  max={2097152}
                  step={1}
                  value={priority}
                  onChange={(e) => setPriority(e.target.value)}
                />
              </label>{' '}
              <button type="submit" disabled={action.isPending}>
                Set priority
              </button>
            </form>
          )}
          {offered('delay') && (
            <form onSubmit={(event) => submitNumber(event, 'delay', delay)}>
              <label>
                Delay (ms){' '}
                <input
                  type="number"
                  min={0}
                  step={1}
                  value={delay}
                  onChange={(e) => setDelay(e.target.value)}
                />
              </label>{' '}
              <button type="submit" disabled={action.isPending}>
                Set delay
              </button>
            </form>
          )}
        </div>
      )}
      {action.error && (
        <p role="alert" className="notice error">
          {action.error.message}
        </p>
      )}
      {message && !action.error && (
        <p role="status" className="notice">
          {message}
        </p>
      )}
      {isAdmin && (
        <EditData
          job={job}
          data={detail.data}
          onSave={(data) => run('data', { data }, 'Data saved.')}
          pending={action.isPending}
        />
      )}
    </section>
  );
}

function EditData({
  data,
  onSave,
  pending,
}: {
  job: JobRef;
  data: unknown;
  onSave: (data: unknown) => void;
  pending: boolean;
}) {
  const [text, setText] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  if (text === null) {
    return (
      <p>
        <button type="button" onClick={() => setText(JSON.stringify(data, null, 2))}>
          Edit data
        </button>
      </p>
    );
  }
  const save = (event: FormEvent) => {
    event.preventDefault();
    try {
      const parsed: unknown = JSON.parse(text);
      setInvalid(null);
      onSave(parsed);
      setText(null);
    } catch (error) {
      setInvalid(error instanceof Error ? error.message : 'not JSON');
    }
  };
  return (
    <form onSubmit={save} className="edit-data">
      <label>
        Job data (JSON; values shown as &quot;[redacted]&quot; keep their stored value)
        <textarea
          rows={10}
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
        />
      </label>
      {invalid && (
        <p role="alert" className="notice error">
          Not valid JSON: {invalid}
        </p>
      )}
      <button type="submit" className="primary" disabled={pending}>
        Save data
      </button>{' '}
      <button type="button" onClick={() => setText(null)}>
        Cancel
      </button>
    </form>
  );
}
