'use client';
/**
 * The queue's limits with where each comes from: the queue-wide settings (the form changes
 * them) and the workers' own options (from their heartbeats), and what fetches apply when both
 * exist (engine/admin/limit-sources.ts). Operators tune the queue-wide ones.
 */
import type { QueueLimits } from '@/lib/api-types';
import { useCanMutate } from '../session/session-context';
import { queueWideRate, rateInForce, workersConcurrency, workersRate } from './limit-words';
import { LimitsForm } from './limits-form';
import { useQueueLimits } from './use-queue-page';

function Facts({ limits }: { limits: QueueLimits }) {
  return (
    <dl className="facts" data-testid="limits">
      <div>
        <dt>Rate limit, queue-wide</dt>
        <dd data-testid="rate-limit-queue">{queueWideRate(limits)}</dd>
      </div>
      <div>
        <dt>Rate limit, workers&apos; own</dt>
        <dd data-testid="rate-limit-workers">{workersRate(limits.workerLimits)}</dd>
      </div>
      <div>
        <dt>Rate limit in force</dt>
        <dd data-testid="rate-limit-in-force">
          {rateInForce(limits).map((line) => (
            <div key={line}>{line}</div>
          ))}
        </dd>
      </div>
      <div>
        <dt>Limiter window left</dt>
        <dd>{limits.rateLimitTtlMs} ms</dd>
      </div>
      <div>
        <dt>Concurrency, queue-wide</dt>
        <dd data-testid="concurrency-queue">{limits.globalConcurrency ?? 'none'}</dd>
      </div>
      <div>
        <dt>Concurrency, workers&apos; own</dt>
        <dd data-testid="concurrency-workers">{workersConcurrency(limits.workerLimits)}</dd>
      </div>
    </dl>
  );
}

export function LimitsPanel({ prefix, name }: { prefix: string; name: string }) {
  const canOperate = useCanMutate('operator');
  const { data } = useQueueLimits(prefix, name);
  return (
    <section className="panel" aria-labelledby="limits-heading">
      <h2 id="limits-heading">Limits</h2>
      {data ? <Facts limits={data} /> : <p aria-live="polite">Loading limits…</p>}
      <p className="muted">
        When both set a rate limit, job starts follow the queue-wide max within the worker&apos;s
        window. Both concurrencies hold: each worker runs at most its own, all workers together at
        most the queue-wide one. bullmq workers, and OxMQ workers with heartbeats off, do not report
        their options.
      </p>
      {canOperate && <LimitsForm prefix={prefix} name={name} />}
    </section>
  );
}
