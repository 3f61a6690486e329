'use client';
/**
 * The operators' form for the queue-wide limits (meta `max` + `duration`, `concurrency`). A rate
 * limit is a pair: half of one is refused here in words, as the API refuses it, never dropped.
 */
import { useState, type FormEvent } from 'react';
import type { QueueLimits } from '@/lib/api-types';
import { RateLimitFields, rateLimitProblem } from './rate-limit-fields';
import { useQueuePost } from './use-queue-page';

interface LimitsBody {
  rateLimit?: { max: number; duration: number } | null;
  globalConcurrency?: number | null;
}

/** Why the filled fields cannot be sent as they are, or null when they can. */
function limitsFormProblem(max: string, duration: string, concurrency: string): string | null {
  const half = rateLimitProblem(max, duration);
  if (half) return half;
  if (max === '' && concurrency === '') {
    return 'Nothing to apply: fill in a rate limit ("Max jobs" and "per (ms)"), a concurrency, or both.';
  }
  return null;
}

export function LimitsForm({ prefix, name }: { prefix: string; name: string }) {
  const save = useQueuePost<LimitsBody, QueueLimits>(prefix, name, 'limits');
  const [max, setMax] = useState('');
  const [duration, setDuration] = useState('');
  const [concurrency, setConcurrency] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const refused = limitsFormProblem(max, duration, concurrency);
    setProblem(refused);
    if (refused) return;
    const body: LimitsBody = {};
    if (max !== '') body.rateLimit = { max: Number(max), duration: Number(duration) };
    if (concurrency !== '') body.globalConcurrency = Number(concurrency);
    save.mutate(body);
  };
  const clear = () => {
    setProblem(null);
    save.mutate({ rateLimit: null, globalConcurrency: null });
  };
  return (
    <>
      <form className="limits-form" onSubmit={submit} aria-label="Queue-wide limits">
        <RateLimitFields max={max} duration={duration} onMax={setMax} onDuration={setDuration} />
        <label>
          Global concurrency
          <input
            type="number"
            min={1}
            value={concurrency}
            onChange={(e) => setConcurrency(e.target.value)}
          />
        </label>
        <button type="submit" disabled={save.isPending}>
          Apply limits
        </button>
        <button type="button" disabled={save.isPending} onClick={clear}>
          Remove limits
        </button>
      </form>
      <p className="muted">
        This form changes the queue-wide settings only. A worker&apos;s own <code>limiter</code> and{' '}
        <code>concurrency</code> are options in its code.
      </p>
      {(problem ?? save.error) && (
        <p role="alert" className="notice error">
          {problem ?? save.error?.message}
        </p>
      )}
    </>
  );
}
