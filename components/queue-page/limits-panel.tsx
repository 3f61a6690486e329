'use client';
/** Current rate limit, global concurrency and the limiter's remaining window; operators tune. */
import { useState, type FormEvent } from 'react';
import type { QueueLimits } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { useQueueLimits, useQueuePost } from './use-queue-page';

interface LimitsBody {
  rateLimit?: { max: number; duration: number } | null;
  globalConcurrency?: number | null;
}

export function LimitsPanel({ prefix, name }: { prefix: string; name: string }) {
  const canOperate = useCanMutate('operator');
  const { data } = useQueueLimits(prefix, name);
  const save = useQueuePost<LimitsBody, QueueLimits>(prefix, name, 'limits');
  const [max, setMax] = useState('');
  const [duration, setDuration] = useState('');
  const [concurrency, setConcurrency] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: LimitsBody = {};
    if (max !== '' && duration !== '') {
      body.rateLimit = { max: Number(max), duration: Number(duration) };
    }
    if (concurrency !== '') body.globalConcurrency = Number(concurrency);
    if (Object.keys(body).length > 0) save.mutate(body);
  };
  return (
    <section className="panel" aria-labelledby="limits-heading">
      <h2 id="limits-heading">Limits</h2>
      <dl className="facts" data-testid="limits">
        <div>
          <dt>Rate limit</dt>
          <dd>
            {data?.rateLimit ? `${data.rateLimit.max} per ${data.rateLimit.duration} ms` : 'none'}
          </dd>
        </div>
        <div>
          <dt>Limiter window left</dt>
          <dd>{data ? `${data.rateLimitTtlMs} ms` : '–'}</dd>
        </div>
        <div>
          <dt>Global concurrency</dt>
          <dd>{data?.globalConcurrency ?? 'none'}</dd>
        </div>
      </dl>
      {canOperate && (
        <form className="limits-form" onSubmit={submit}>
          <label>
            Max jobs
            <input type="number" min={1} value={max} onChange={(e) => setMax(e.target.value)} />
          </label>
          <label>
            per (ms)
            <input
              type="number"
              min={1}
              value={duration}
              onChange={(e) => setDuration(e.target.value)}
            />
          </label>
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
          <button
            type="button"
            disabled={save.isPending}
            onClick={() => save.mutate({ rateLimit: null, globalConcurrency: null })}
          >
            Remove limits
          </button>
        </form>
      )}
      {save.error && (
        <p role="alert" className="notice error">
          {save.error.message}
        </p>
      )}
    </section>
  );
}
