'use client';
import { formatCount } from '@/lib/format-number';
import Link from 'next/link';
import type { QueueCountState, QueueOverview } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { Sparkline } from './sparkline';
import type { CardSparklines } from './sparkline-series';
import { useQueueAction } from './use-queues';

const STATE_LABELS: Record<QueueCountState, string> = {
  waiting: 'Waiting',
  active: 'Active',
  delayed: 'Delayed',
  prioritized: 'Prioritized',
  completed: 'Completed',
  failed: 'Failed',
  'waiting-children': 'Waiting children',
};

export function QueueCard({
  queue,
  sparklines,
}: {
  queue: QueueOverview;
  /** Undefined while the history is loading (sparkline-series.ts). */
  sparklines: CardSparklines | undefined;
}) {
  const canOperate = useCanMutate('operator');
  const action = useQueueAction();
  const headingId = `queue-${queue.prefix}-${queue.name}`;
  const next = queue.paused ? 'resume' : 'pause';
  return (
    <section className="card" aria-labelledby={headingId} data-queue={queue.name}>
      <div className="card-head">
        <h2 id={headingId}>
          {/* queue page */}
          <Link
            href={`/queues/${encodeURIComponent(queue.prefix)}/${encodeURIComponent(queue.name)}`}
          >
            <span className="prefix">{queue.prefix}:</span>
            {queue.name}
          </Link>
        </h2>
        {queue.paused && <span className="badge paused">Paused</span>}
        {queue.rateLimited && (
          <span className="badge limited" title={`${queue.rateLimitTtlMs} ms left`}>
            Rate limited
          </span>
        )}
        {canOperate && (
          <span className="actions">
            <button
              type="button"
              disabled={action.isPending}
              onClick={() =>
                action.mutate({ prefix: queue.prefix, name: queue.name, action: next })
              }
            >
              {queue.paused ? 'Resume' : 'Pause'}
              <span className="visually-hidden"> {queue.name}</span>
            </button>
          </span>
        )}
      </div>
      {action.error && (
        <p role="alert" className="notice error">
          {action.error.message}
        </p>
      )}
      <dl className="counts">
        {(Object.keys(STATE_LABELS) as QueueCountState[]).map((state) => (
          <div key={state} data-state={state}>
            <dt>{STATE_LABELS[state]}</dt>
            <dd>{formatCount(queue.counts[state])}</dd>
          </div>
        ))}
      </dl>
      <div className="card-foot">
        <span className="workers" data-testid="workers">
          {formatCount(queue.workers.length)} {queue.workers.length === 1 ? 'worker' : 'workers'}
          {queue.globalConcurrency !== null &&
            ` · concurrency ${formatCount(queue.globalConcurrency)}`}
          {queue.rateLimit &&
            ` · limit ${formatCount(queue.rateLimit.max)}/${formatCount(queue.rateLimit.duration)} ms`}
        </span>
        <Sparkline label="Completed" series={sparklines?.completed} color="var(--ok)" />
        <Sparkline label="Failed" series={sparklines?.failed} color="var(--danger)" />
      </div>
    </section>
  );
}
