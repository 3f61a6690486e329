'use client';
/**
 * Concurrency and rate limit of one tenant group: set or clear (the queue default applies).
 * Half a rate limit is refused in words, never dropped.
 */
import { useState, type FormEvent } from 'react';
import { RateLimitFields, rateLimitProblem } from './rate-limit-fields';
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
  const [problem, setProblem] = useState<string | null>(null);
  const setCap = (event: FormEvent) => {
    event.preventDefault();
    if (concurrency !== '') {
      send({ id: groupId, verb: 'concurrency', concurrency: Number(concurrency) });
    }
  };
  const setLimit = (event: FormEvent) => {
    event.preventDefault();
    const refused =
      max === '' && duration === ''
        ? 'Fill in "Max jobs" and "per (ms)" to set a rate limit, or use "Clear rate limit".'
        : rateLimitProblem(max, duration);
    setProblem(refused);
    if (!refused) {
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
        <RateLimitFields max={max} duration={duration} onMax={setMax} onDuration={setDuration} />
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
      {problem && (
        <p role="alert" className="notice error">
          {problem}
        </p>
      )}
    </div>
  );
}
