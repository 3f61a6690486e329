/** oxmq-latency: how long jobs wait and run, across queues, and how flows progress. */
import { quantile, selector } from './promql-fragments';
import { DashboardPlan, type BuiltDashboard } from './plan';
import { datasourceVariable, queryVariable } from './variables';

const P = 'prefix=~"$prefix"';
const QUEUE = '{{prefix}} {{queue}}';
const PROCESSING = 'oxmq_job_processing_duration_seconds';
const WAIT = 'oxmq_job_wait_time_seconds';

/** Per-queue percentile over the dashboard's rate interval. */
function perQueue(q: number, histogram: string) {
  return { expr: quantile(q, histogram, P, ['prefix', 'queue']), legend: QUEUE };
}

/** A histogram's buckets as counts per interval, for a heatmap. */
function buckets(histogram: string): string {
  return `sum by (le) (increase(${histogram}_bucket${selector(P)}[$__rate_interval]))`;
}

/** Mean of a histogram per queue over the whole time range. */
function mean(histogram: string): string {
  const over = (series: string) =>
    `sum by (prefix, queue) (rate(${histogram}_${series}${selector(P)}[$__range]))`;
  return `${over('sum')} / ${over('count')}`;
}

export function latencyDashboard(): BuiltDashboard {
  return new DashboardPlan({
    uid: 'oxmq-latency',
    title: 'OxMQ latency and flows',
    description: 'How long OxMQ jobs wait and run, per queue, and whether flow parents progress.',
    variables: [
      datasourceVariable(),
      queryVariable({
        name: 'prefix',
        label: 'Prefix',
        query: 'label_values(bullmq_job_count, prefix)',
        description: 'Key prefixes to include.',
        multi: true,
      }),
    ],
  })
    .row('Processing time')
    .timeseries({
      title: 'Processing duration p95',
      description: 'Which queue has slow jobs? 95% of attempts finish within this time.',
      queries: [perQueue(0.95, PROCESSING)],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Processing duration p50',
      description: 'How long does a typical job of each queue run? The median attempt.',
      queries: [perQueue(0.5, PROCESSING)],
      unit: 's',
      w: 12,
      h: 8,
    })
    .heatmap({
      title: 'Processing duration distribution',
      description:
        'How are run times spread? Attempts per duration bucket over time, all selected ' +
        'queues: two bands mean two kinds of jobs (or a slow dependency some of the time).',
      queries: [{ expr: buckets(PROCESSING) }],
      unit: 's',
      w: 12,
      h: 8,
    })
    .heatmap({
      title: 'Wait time distribution',
      description:
        'How are wait times spread? Started attempts per wait-time bucket over time: a band ' +
        'moving up means the backlog grows faster than workers serve it.',
      queries: [{ expr: buckets(WAIT) }],
      unit: 's',
      w: 12,
      h: 8,
    })
    .row('Waiting')
    .timeseries({
      title: 'Wait time p95',
      description:
        'How long do jobs wait? 95% of attempts started within this time of becoming due.',
      queries: [perQueue(0.95, WAIT)],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Wait time p50',
      description: 'How long does a typical job wait before it starts?',
      queries: [perQueue(0.5, WAIT)],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Oldest waiting job',
      description:
        'Which queue has jobs waiting the longest right now? Unlike the wait-time percentiles, ' +
        'this also counts jobs that have not started (a queue nobody serves shows here only).',
      queries: [
        {
          expr: `max by (prefix, queue) (oxmq_queue_oldest_waiting_age_seconds{${P}})`,
          legend: QUEUE,
        },
      ],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Flow parents waiting for children',
      description:
        'Are flows progressing? Parent jobs waiting for their children. A line that only rises ' +
        'means children are slow, failing, or queued where nobody serves them.',
      queries: [
        {
          expr: `max by (prefix, queue) (bullmq_job_count{${P}, state="waiting-children"})`,
          legend: QUEUE,
        },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .row('Slowest queues')
    .table({
      title: 'Slowest queues over the time range',
      description:
        'Which queues are slowest? Over the whole time range: p95 and mean processing time, ' +
        'p95 wait time, and attempts per second. Sorted by p95 processing time.',
      queries: [
        { expr: quantile(0.95, PROCESSING, P, ['prefix', 'queue'], '$__range') },
        { expr: mean(PROCESSING) },
        { expr: quantile(0.95, WAIT, P, ['prefix', 'queue'], '$__range') },
        {
          expr: `sum by (prefix, queue) (rate(${PROCESSING}_count${selector(P)}[$__range]))`,
        },
      ],
      columns: [
        { header: 'p95 processing', unit: 's' },
        { header: 'Mean processing', unit: 's' },
        { header: 'p95 wait', unit: 's' },
        { header: 'Attempts', unit: 'ops' },
      ],
      sortBy: 'p95 processing',
      w: 24,
      h: 9,
    })
    .build();
}
