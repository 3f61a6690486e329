/** oxmq-workers: the worker runner processes, one series per Prometheus `instance`. */
import { orZeroFor } from './promql-fragments';
import { DashboardPlan, redFrom, type BuiltDashboard } from './plan';
import { datasourceVariable, queryVariable } from './variables';

const I = 'instance=~"$instance"';
const PER_INSTANCE = '{{instance}}';
/**
 * Every runner process exposes its event-loop lag from its start, so this lists the instances
 * even before any event: the zero-valued companion of per-instance event rates (orZeroFor).
 */
const INSTANCES = `max by (instance) (oxmq_event_loop_lag_seconds{${I}})`;

export function workersDashboard(): BuiltDashboard {
  return new DashboardPlan({
    uid: 'oxmq-workers',
    title: 'OxMQ workers',
    description: 'The OxMQ worker runner processes: capacity, health and throughput per instance.',
    variables: [
      datasourceVariable(),
      queryVariable({
        name: 'instance',
        label: 'Runner',
        query: 'label_values(oxmq_event_loop_lag_seconds, instance)',
        description: 'Worker runner processes (their health address, as Prometheus scrapes it).',
        multi: true,
      }),
    ],
  })
    .row('All selected runners')
    .stat({
      title: 'Runner processes',
      description: 'How many worker runner processes report metrics?',
      queries: [{ expr: `count(${INSTANCES})` }],
      unit: 'short',
      w: 6,
      h: 4,
    })
    .stat({
      title: 'Slots in use',
      description:
        'How close are the runners to their capacity? Jobs in flight over the sum of their ' +
        'concurrency. Near 100% while jobs wait: add runners or concurrency.',
      queries: [
        {
          expr: `sum(oxmq_worker_jobs_in_flight{${I}}) / sum(oxmq_worker_concurrency{${I}})`,
        },
      ],
      unit: 'percentunit',
      steps: [
        { value: null, color: 'green' },
        { value: 0.8, color: 'yellow' },
        { value: 0.95, color: 'red' },
      ],
      w: 6,
      h: 4,
    })
    .stat({
      title: 'Worst event loop lag',
      description:
        'Is any runner’s event loop blocked? The highest p99 event-loop delay: a blocked loop ' +
        'renews no locks, and its jobs end up stalled.',
      queries: [{ expr: `max(oxmq_event_loop_lag_seconds{${I}})` }],
      unit: 's',
      steps: [
        { value: null, color: 'green' },
        { value: 0.1, color: 'yellow' },
        { value: 1, color: 'red' },
      ],
      w: 6,
      h: 4,
    })
    .stat({
      title: 'Lock renewal failures per minute',
      description:
        'Are runners losing their jobs? Locks they failed to extend; each is a job another ' +
        'worker may run again. Anything above 0 deserves a look at the lag and Redis.',
      queries: [
        {
          expr:
            `sum(rate(oxmq_lock_renewal_failures_total{${I}}[$__rate_interval])) * 60 ` +
            'or vector(0)',
        },
      ],
      unit: 'opm',
      steps: redFrom(0.001),
      w: 6,
      h: 4,
    })
    .row('Per runner')
    .timeseries({
      title: 'In flight vs concurrency',
      description:
        'Is each runner busy or idle? Jobs it runs now against its slots (the sum of its ' +
        'workers’ concurrency).',
      queries: [
        {
          expr: `sum by (instance) (oxmq_worker_jobs_in_flight{${I}})`,
          legend: `${PER_INSTANCE} in flight`,
        },
        {
          expr: `sum by (instance) (oxmq_worker_concurrency{${I}})`,
          legend: `${PER_INSTANCE} slots`,
        },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Slot use',
      description:
        'Which runner is saturated? In-flight jobs over slots, per runner. Uneven lines mean ' +
        'some runners serve busier queues than others.',
      queries: [
        {
          expr:
            `sum by (instance) (oxmq_worker_jobs_in_flight{${I}}) / ` +
            `(sum by (instance) (oxmq_worker_concurrency{${I}}) > 0)`,
          legend: PER_INSTANCE,
        },
      ],
      unit: 'percentunit',
      max: 1,
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Event loop lag (p99)',
      description:
        'Is a runner’s event loop blocked? The p99 delay since the previous scrape. CPU-heavy ' +
        'processors belong in sandboxed (child process or thread) workers.',
      queries: [
        { expr: `max by (instance) (oxmq_event_loop_lag_seconds{${I}})`, legend: PER_INSTANCE },
      ],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Lock renewal failures and stalled jobs',
      description:
        'Which runner loses locks, and which finds stalled jobs? Per minute: lock renewals that ' +
        'failed, and jobs its stalled checker moved back to wait (or failed).',
      queries: [
        {
          expr: orZeroFor(
            `sum by (instance) (rate(oxmq_lock_renewal_failures_total{${I}}[$__rate_interval])) * 60`,
            INSTANCES,
          ),
          legend: `${PER_INSTANCE} lock renewal failures`,
        },
        {
          expr: orZeroFor(
            `sum by (instance) (rate(oxmq_jobs_stalled_total{${I}}[$__rate_interval])) * 60`,
            INSTANCES,
          ),
          legend: `${PER_INSTANCE} stalled`,
        },
      ],
      unit: 'opm',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Completed per second',
      description: 'How much does each runner get done? Jobs it completed, over all its queues.',
      queries: [
        {
          expr: `sum by (instance) (rate(oxmq_jobs_completed_total{${I}}[$__rate_interval]))`,
          legend: PER_INSTANCE,
        },
      ],
      unit: 'ops',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Failed attempts per second',
      description:
        'Which runner’s jobs fail? Failed attempts, whether retried later or final, over all ' +
        'its queues.',
      queries: [
        {
          expr: orZeroFor(
            `sum by (instance) (rate(oxmq_jobs_failed_total{${I}}[$__rate_interval]))`,
            INSTANCES,
          ),
          legend: PER_INSTANCE,
        },
      ],
      unit: 'ops',
      w: 12,
      h: 8,
    })
    .table({
      title: 'Queues per runner',
      description:
        'Which runner serves which queue, with how many slots? One row per runner and queue: ' +
        'jobs in flight and slots.',
      queries: [
        { expr: `sum by (instance, prefix, queue) (oxmq_worker_jobs_in_flight{${I}})` },
        { expr: `sum by (instance, prefix, queue) (oxmq_worker_concurrency{${I}})` },
      ],
      columns: [
        { header: 'In flight', unit: 'short' },
        { header: 'Slots', unit: 'short' },
      ],
      sortBy: 'In flight',
      w: 24,
      h: 8,
    })
    .build();
}
