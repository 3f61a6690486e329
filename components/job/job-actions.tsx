'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
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

/**
 * The job's actions, offered by role (viewer none; operator retry, promote, priority, delay,
 * duplicate, cancel a running job; admin also remove and edit data) and by state. The API enforces the same rules.
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
  const finished = detail.state === 'failed' || detail.state === 'completed';
  const movable = detail.state !== 'active' && !finished;

  return (
    <section aria-labelledby="job-actions" className="card job-actions">
      <h2 id="job-actions">Actions</h2>
      <div className="actions-row">
        {finished && (
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
        {detail.state === 'delayed' && (
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
        {isAdmin && (
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
      {movable && (
        <div className="actions-row">
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
