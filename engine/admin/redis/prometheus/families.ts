/**
 * The metric families of queue snapshots: bullmq's three (names, HELP and TYPE exactly as
 * bullmq 6.7.0's Queue.exportPrometheusMetrics writes them, so dashboards made for bullmq keep
 * working) and OxMQ's `oxmq_queue_*` (docs/metrics.md, the "Console" table).
 *
 * Builders take the labels per queue rather than fixing them: bullmq's own text labels a job
 * count `queue, state, <globalVariables>`, while the console labels every family
 * `prefix, queue` first.
 */
import type { QueueSnapshot } from './queue-snapshot';
import type { Labels, MetricFamily } from './text-format';

export interface LabelledSnapshot {
  snapshot: QueueSnapshot;
  /** Workers connected to the queue (from CLIENT LIST). */
  workers: number;
  /** Labels every sample of this queue starts with. */
  leading: Labels;
  /** Labels every sample of this queue ends with (bullmq's globalVariables). */
  trailing: Labels;
}

export function bullmqFamilies(queues: readonly LabelledSnapshot[]): MetricFamily[] {
  return [
    {
      name: 'bullmq_job_count',
      help: 'Number of jobs in the queue by state',
      type: 'gauge',
      samples: queues.flatMap(({ snapshot, leading, trailing }) =>
        Object.entries(snapshot.counts).map(([state, count]) => ({
          labels: [...leading, ['state', state] as const, ...trailing],
          value: count,
        })),
      ),
    },
    {
      name: 'bullmq_job_completed_total',
      help: 'Total number of completed jobs',
      type: 'counter',
      samples: queues.map(({ snapshot, leading, trailing }) => ({
        labels: [...leading, ...trailing],
        value: snapshot.completed.total,
      })),
    },
    {
      name: 'bullmq_job_failed_total',
      help: 'Total number of failed jobs',
      type: 'counter',
      samples: queues.map(({ snapshot, leading, trailing }) => ({
        labels: [...leading, ...trailing],
        value: snapshot.failed.total,
      })),
    },
  ];
}

/** One gauge of OxMQ's; `valueOf` answers undefined for a queue the family leaves out. */
function queueGauge(
  queues: readonly LabelledSnapshot[],
  name: string,
  help: string,
  valueOf: (queue: LabelledSnapshot) => number | undefined,
): MetricFamily {
  const samples = [];
  for (const queue of queues) {
    const value = valueOf(queue);
    if (value !== undefined) samples.push({ labels: [...queue.leading, ...queue.trailing], value });
  }
  return { name, help, type: 'gauge', samples };
}

export function oxmqQueueFamilies(queues: readonly LabelledSnapshot[]): MetricFamily[] {
  return [
    queueGauge(
      queues,
      'oxmq_queue_oldest_waiting_age_seconds',
      'Seconds since the oldest job waiting to run was added (0 when none waits).',
      ({ snapshot }) => snapshot.oldestWaitingAgeSeconds,
    ),
    queueGauge(
      queues,
      'oxmq_queue_paused',
      '1 when the queue is paused, else 0.',
      ({ snapshot }) => (snapshot.paused ? 1 : 0),
    ),
    queueGauge(
      queues,
      'oxmq_queue_rate_limit_ttl_seconds',
      "Seconds the queue's rate limiter still holds job starts back (0 when it does not).",
      ({ snapshot }) => snapshot.rateLimitTtlMs / 1000,
    ),
    queueGauge(
      queues,
      'oxmq_queue_global_concurrency_limit',
      "The queue's global concurrency (only for queues that set one).",
      ({ snapshot }) => snapshot.globalConcurrency ?? undefined,
    ),
    queueGauge(
      queues,
      'oxmq_queue_workers',
      'Workers connected to the queue (their named blocking connections).',
      ({ workers }) => workers,
    ),
    queueGauge(
      queues,
      'oxmq_queue_completed_last_minute',
      "Jobs completed in the last closed minute, from the queue's metrics keys.",
      ({ snapshot }) => snapshot.completed.lastMinute,
    ),
    queueGauge(
      queues,
      'oxmq_queue_failed_last_minute',
      "Jobs failed in the last closed minute, from the queue's metrics keys.",
      ({ snapshot }) => snapshot.failed.lastMinute,
    ),
  ];
}
