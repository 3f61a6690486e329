'use client';
/**
 * Queue-wide actions: pause/resume (operator), drain, clean, obliterate (admin, each behind a
 * typed confirmation). The server checks the same confirmation and roles.
 */
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { QueueCleanResponse, QueueOkResponse } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { useQueueAction } from '../queues/use-queues';
import { TypedConfirm } from './typed-confirm';
import { useQueuePost } from './use-queue-page';

type Destructive = 'drain' | 'clean' | 'obliterate';
const CLEAN_STATES = ['completed', 'failed', 'delayed', 'waiting', 'prioritized'] as const;

export function QueueActions({
  prefix,
  name,
  paused,
}: {
  prefix: string;
  name: string;
  paused: boolean;
}) {
  const router = useRouter();
  const canOperate = useCanMutate('operator');
  const canAdmin = useCanMutate('admin');
  const pauseResume = useQueueAction();
  const [open, setOpen] = useState<Destructive | null>(null);
  const [cleanState, setCleanState] = useState<(typeof CLEAN_STATES)[number]>('completed');
  const [graceMinutes, setGraceMinutes] = useState(60);
  const [message, setMessage] = useState<string | null>(null);
  const drain = useQueuePost<{ confirm: string; delayed: boolean }, QueueOkResponse>(
    prefix,
    name,
    'drain',
  );
  const clean = useQueuePost<
    { confirm: string; state: string; graceMs: number },
    QueueCleanResponse
  >(prefix, name, 'clean');
  const obliterate = useQueuePost<{ confirm: string; force: boolean }, QueueOkResponse>(
    prefix,
    name,
    'obliterate',
  );
  if (!canOperate) return null;
  const error = pauseResume.error ?? drain.error ?? clean.error ?? obliterate.error;
  const close = () => setOpen(null);

  return (
    <section className="panel" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Queue actions</h2>
      <div className="action-row">
        <button
          type="button"
          className="primary"
          disabled={pauseResume.isPending}
          onClick={() => pauseResume.mutate({ prefix, name, action: paused ? 'resume' : 'pause' })}
        >
          {paused ? 'Resume queue' : 'Pause queue'}
        </button>
        {canAdmin &&
          (['drain', 'clean', 'obliterate'] as const).map((action) => (
            <button
              key={action}
              type="button"
              className="danger"
              aria-expanded={open === action}
              onClick={() => setOpen(open === action ? null : action)}
            >
              {action[0]?.toUpperCase()}
              {action.slice(1)}…
            </button>
          ))}
      </div>
      {open === 'drain' && (
        <TypedConfirm
          name={name}
          label="Drain"
          pending={drain.isPending}
          onCancel={close}
          onConfirm={(confirm) =>
            drain.mutate(
              { confirm, delayed: false },
              {
                onSuccess: () => {
                  close();
                  setMessage('Drained the waiting jobs.');
                },
              },
            )
          }
        >
          <p>Removes every waiting job.</p>
        </TypedConfirm>
      )}
      {open === 'clean' && (
        <TypedConfirm
          name={name}
          label="Clean"
          pending={clean.isPending}
          onCancel={close}
          onConfirm={(confirm) =>
            clean.mutate(
              { confirm, state: cleanState, graceMs: graceMinutes * 60_000 },
              {
                onSuccess: (r) => {
                  close();
                  setMessage(`Cleaned ${r.removed} jobs.`);
                },
              },
            )
          }
        >
          <label>
            State
            <select
              value={cleanState}
              onChange={(e) => setCleanState(e.target.value as (typeof CLEAN_STATES)[number])}
            >
              {CLEAN_STATES.map((state) => (
                <option key={state}>{state}</option>
              ))}
            </select>
          </label>
          <label>
            Older than (minutes)
            <input
              type="number"
              min={0}
              value={graceMinutes}
              onChange={(e) => setGraceMinutes(Math.max(0, Number(e.target.value)))}
            />
          </label>
        </TypedConfirm>
      )}
      {open === 'obliterate' && (
        <TypedConfirm
          name={name}
          label="Obliterate"
          pending={obliterate.isPending}
          onCancel={close}
          onConfirm={(confirm) =>
            obliterate.mutate({ confirm, force: true }, { onSuccess: () => router.push('/') })
          }
        >
          <p>Deletes the queue and every job in it, active ones included. This cannot be undone.</p>
        </TypedConfirm>
      )}
      {message && (
        <p role="status" className="notice">
          {message}
        </p>
      )}
      {error && (
        <p role="alert" className="notice error">
          {error.message}
        </p>
      )}
    </section>
  );
}
