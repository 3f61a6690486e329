'use client';
/** Concurrency and rate limit of one tenant group: set or clear (the queue default applies). */
import { useState, type FormEvent } from 'react';
import type { GroupCommand } from './use-groups';

export function GroupLimitsForm({
  groupId,
  busy,
  send,
}: {
  groupId: string;
  busy: boolean;
  send: (command: GroupCommand) => void;
}) {
  const [concurrency, setConcurrency] = useState('');
  const [max, setMax] = useState('');
  const [duration, setDuration] = useState('');
  const setCap = (event: FormEvent) => {
    event.preventDefault();
    if (concurrency !== '') {
      send({ id: groupId, verb: 'concurrency', concurrency: Number(concurrency) });
    }
  };
  const setLimit = (event: FormEvent) => {
    event.preventDefault();
    if (max !== '' && duration !== '') {
      send({
        id: groupId,
        verb: 'rate-limit',
        rateLimit: { max: Number(max), duration: Number(duration) },
      });
    }
  };
  return (
    <div data-testid="group-limits-form">
      <h3>Limits of group {groupId}</h3>
      <form className="limits-form" onSubmit={setCap}>
        <label>
          Concurrency
          <input
            type="number"
            min={1}
            value={concurrency}
            onChange={(event) => setConcurrency(event.target.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Set concurrency
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => send({ id: groupId, verb: 'concurrency', concurrency: null })}
        >
          Clear concurrency
        </button>
      </form>
      <form className="limits-form" onSubmit={setLimit}>
        <label>
          Max jobs
          <input
            type="number"
            min={1}
            value={max}
            onChange={(event) => setMax(event.target.value)}
          />
        </label>
        <label>
          per (ms)
          <input
            type="number"
            min={1}
            value={duration}
            onChange={(event) => setDuration(event.target.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Set rate limit
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => send({ id: groupId, verb: 'rate-limit', rateLimit: null })}
        >
          Clear rate limit
        </button>
      </form>
    </div>
  );
}
