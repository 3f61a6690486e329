/** oxmq-overview: every queue at once, with "is anything wrong?" on the first line. */
import { backlogByQueue, orZeroFor, unservedQueues } from './promql-fragments';
import { DashboardPlan, redFrom, type BuiltDashboard } from './plan';
import { datasourceVariable } from './variables';

const QUEUE = '{{prefix}} {{queue}}';
/** Zero-valued companion for per-queue rates: queues a runner serves (see orZeroFor). */
const SERVED_QUEUES = 'max by (prefix, queue) (oxmq_worker_concurrency)';

export function overviewDashboard(): BuiltDashboard {
  return new DashboardPlan({
    uid: 'oxmq-overview',
    title: 'OxMQ overview',
    description: 'All OxMQ queues: is anything wrong, and is every queue keeping up?',
    variables: [datasourceVariable()],
  })
    .row('Is anything wrong?')
    .stat({
      title: 'Queues waiting without workers',
      description:
        'Is any backlog going unserved? Queues that have waiting or prioritized jobs and no ' +
        'connected worker: nothing will run those jobs until a worker for that queue starts. ' +
        'The table below names them.',
      queries: [{ expr: `count(${unservedQueues()}) or vector(0)` }],
      unit: 'short',
      steps: redFrom(1),
      w: 4,
      h: 4,
    })
    .stat({
      title: 'Paused queues',
      description: 'Is any queue paused? Paused queues keep their jobs and start none.',
      queries: [{ expr: 'count(max by (prefix, queue) (oxmq_queue_paused) == 1) or vector(0)' }],
      unit: 'short',
      steps: [
        { value: null, color: 'green' },
        { value: 1, color: 'yellow' },
      ],
      w: 4,
      h: 4,
    })
    .stat({
      title: 'Oldest waiting job',
      description:
        'How long has the most patient job been waiting, over all queues? A value that keeps ' +
        'growing means some queue is not being served fast enough (see the per-queue panel).',
      queries: [{ expr: 'max(oxmq_queue_oldest_waiting_age_seconds)' }],
      unit: 's',
      steps: [
        { value: null, color: 'green' },
        { value: 60, color: 'yellow' },
        { value: 300, color: 'red' },
      ],
      w: 4,
      h: 4,
    })
    .stat({
      title: 'Failed jobs per minute',
      description:
        'Is anything failing? Jobs the worker runners moved to failed (no attempt left), per ' +
        'minute, over all queues. Attempts that will be retried are not counted here.',
      queries: [
        {
          expr: 'sum(rate(oxmq_jobs_failed_total{final="true"}[$__rate_interval])) * 60 or vector(0)',
        },
      ],
      unit: 'opm',
      steps: redFrom(1),
      w: 4,
      h: 4,
    })
    .stat({
      title: 'Completed per second',
      description: 'How much work gets done? Jobs the worker runners completed, over all queues.',
      queries: [{ expr: 'sum(rate(oxmq_jobs_completed_total[$__rate_interval])) or vector(0)' }],
      unit: 'ops',
      w: 4,
      h: 4,
    })
    .stat({
      title: 'Queues left out of the scrape',
      description:
        'Do these dashboards see every queue? Queues the console left out of its metrics ' +
        'because of OXMQ_METRICS_MAX_QUEUES. Above 0, every panel here misses those queues: ' +
        'raise the limit.',
      queries: [{ expr: 'max(oxmq_scrape_queues_omitted)' }],
      unit: 'short',
      steps: redFrom(1),
      w: 4,
      h: 4,
    })
    .table({
      title: 'Queues with waiting jobs and no worker',
      description:
        'Which queues is nobody serving? Each row is a queue with a backlog and no connected ' +
        'worker, with the size of that backlog. Empty is good.',
      queries: [
        {
          expr: unservedQueues(),
          emptyWhen: 'every queue with waiting jobs has a connected worker',
        },
      ],
      columns: [{ header: 'Waiting jobs', unit: 'short' }],
      sortBy: 'Waiting jobs',
      w: 8,
      h: 8,
    })
    .table({
      title: 'All queues',
      description:
        'Where is each queue now? One row per queue: its backlog, running and failed jobs, ' +
        'connected workers, whether it is paused, and how long its oldest job has waited. Click ' +
        'a queue for its own dashboard.',
      queries: [
        { expr: backlogByQueue() },
        { expr: 'max by (prefix, queue) (bullmq_job_count{state="active"})' },
        { expr: 'max by (prefix, queue) (bullmq_job_count{state="failed"})' },
        { expr: 'max by (prefix, queue) (oxmq_queue_workers)' },
        { expr: 'max by (prefix, queue) (oxmq_queue_paused)' },
        { expr: 'max by (prefix, queue) (oxmq_queue_oldest_waiting_age_seconds)' },
      ],
      columns: [
        { header: 'Waiting', unit: 'short' },
        { header: 'Active', unit: 'short' },
        { header: 'Failed (kept)', unit: 'short' },
        { header: 'Workers', unit: 'short' },
        { header: 'Paused', unit: 'bool_yes_no' },
        { header: 'Oldest waiting', unit: 's' },
      ],
      sortBy: 'Waiting',
      w: 16,
      h: 8,
    })
    .row('Backlog and throughput per queue')
    .timeseries({
      title: 'Backlog (waiting + prioritized)',
      description:
        'Is each queue keeping up? Jobs ready to run and not yet started. A line that keeps ' +
        'rising means jobs arrive faster than workers finish them.',
      queries: [{ expr: backlogByQueue(), legend: QUEUE }],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Active jobs',
      description: 'How busy is each queue? Jobs running now (holding a lock).',
      queries: [
        { expr: 'max by (prefix, queue) (bullmq_job_count{state="active"})', legend: QUEUE },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Completed per second',
      description: 'How fast does each queue drain? Jobs the worker runners completed.',
      queries: [
        {
          expr: 'sum by (prefix, queue) (rate(oxmq_jobs_completed_total[$__rate_interval]))',
          legend: QUEUE,
        },
      ],
      unit: 'ops',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Failed per minute',
      description:
        'Which queue is failing? Jobs moved to failed after their last attempt, per minute. ' +
        'The queue dashboard also shows attempts that will be retried.',
      queries: [
        {
          expr: orZeroFor(
            'sum by (prefix, queue) (rate(oxmq_jobs_failed_total{final="true"}[$__rate_interval])) * 60',
            SERVED_QUEUES,
          ),
          legend: QUEUE,
        },
      ],
      unit: 'opm',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Oldest waiting job',
      description:
        'How long do jobs wait before they start? The age of each queue’s oldest waiting ' +
        'job; it also grows for a queue nobody serves, where no wait time is ever recorded.',
      queries: [
        {
          expr: 'max by (prefix, queue) (oxmq_queue_oldest_waiting_age_seconds)',
          legend: QUEUE,
        },
      ],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Connected workers',
      description:
        'Who serves each queue? Workers connected to it (OxMQ and bullmq workers alike). A ' +
        'drop to 0 while jobs wait is what the first panel counts.',
      queries: [{ expr: 'max by (prefix, queue) (oxmq_queue_workers)', legend: QUEUE }],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .build();
}
