/**
 * oxmq-queue: one queue, chosen with $prefix and $queue. The console links here as
 * /d/oxmq-queue/oxmq-queue?var-prefix=<prefix>&var-queue=<name>, so the uid and the variable
 * names are part of that contract.
 */
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { orZeroFor, quantile } from './promql-fragments';
import { DashboardPlan, type BuiltDashboard, type Query, type StatSpec } from './plan';
import { QUEUE_DASHBOARD_UID, datasourceVariable, queryVariable } from './variables';

const Q = 'prefix="$prefix", queue="$queue"';
/** Zero-valued companion for this queue's event rates, when a runner serves it (orZeroFor). */
const SERVED = `max(oxmq_worker_concurrency{${Q}})`;

/** The queue's job count in the given states (console gauges: max over console replicas). */
function jobs(states: string): string {
  return `sum(max by (state) (bullmq_job_count{${Q}, state=~"${states}"}))`;
}

function perMinute(counter: string, extra = ''): string {
  const matchers = extra ? `${Q}, ${extra}` : Q;
  return orZeroFor(`sum(rate(${counter}{${matchers}}[$__rate_interval])) * 60`, SERVED);
}

function countStat(title: string, states: string, description: string): StatSpec {
  return { title, description, queries: [{ expr: jobs(states) }], unit: 'short', w: 3, h: 4 };
}

const PROCESSING: Query[] = [0.5, 0.95, 0.99].map((q) => ({
  expr: quantile(q, 'oxmq_job_processing_duration_seconds', Q, []),
  legend: `p${q * 100}`,
}));

const WAIT: Query[] = [0.5, 0.95].map((q) => ({
  expr: quantile(q, 'oxmq_job_wait_time_seconds', Q, []),
  legend: `p${q * 100}`,
}));

export function queueDashboard(): BuiltDashboard {
  return new DashboardPlan({
    uid: QUEUE_DASHBOARD_UID,
    title: 'OxMQ queue',
    description: 'One OxMQ queue: its jobs, throughput, latency and the capacity serving it.',
    variables: [
      datasourceVariable(),
      queryVariable({
        name: 'prefix',
        label: 'Prefix',
        query: 'label_values(bullmq_job_count, prefix)',
        description: 'The key prefix of the queue (bull unless the application set another).',
      }),
      queryVariable({
        name: 'queue',
        label: 'Queue',
        query: 'label_values(bullmq_job_count{prefix="$prefix"}, queue)',
        description: 'The queue name.',
      }),
    ],
  })
    .row('Now')
    .stat(
      countStat(
        'Waiting',
        'waiting|prioritized',
        'How many jobs are ready to run and not started?',
      ),
    )
    .stat(countStat('Active', 'active', 'How many jobs are running now?'))
    .stat(countStat('Delayed', 'delayed', 'How many jobs wait for their delay or backoff to end?'))
    .stat(
      countStat(
        'Waiting for children',
        'waiting-children',
        'How many flow parents wait for their children to finish?',
      ),
    )
    .stat(countStat('Failed (kept)', 'failed', 'How many failed jobs does the queue keep?'))
    .stat({
      title: 'Workers connected',
      description: 'Is anyone serving this queue? 0 while jobs wait means they will not run.',
      queries: [{ expr: `max(oxmq_queue_workers{${Q}})` }],
      unit: 'short',
      steps: [
        { value: null, color: 'red' },
        { value: 1, color: 'green' },
      ],
      w: 3,
      h: 4,
    })
    .stat({
      title: 'State',
      description: 'Is the queue paused? A paused queue keeps its jobs and starts none.',
      queries: [{ expr: `max(oxmq_queue_paused{${Q}})` }],
      unit: 'short',
      mappings: [
        {
          type: dashboard.MappingType.ValueToText,
          options: {
            '0': { text: 'running', color: 'green' },
            '1': { text: 'paused', color: 'yellow' },
          },
        },
      ],
      w: 3,
      h: 4,
    })
    .stat({
      title: 'Oldest waiting job',
      description: 'How long has the oldest waiting job waited? Growing means not keeping up.',
      queries: [{ expr: `max(oxmq_queue_oldest_waiting_age_seconds{${Q}})` }],
      unit: 's',
      steps: [
        { value: null, color: 'green' },
        { value: 60, color: 'yellow' },
        { value: 300, color: 'red' },
      ],
      w: 3,
      h: 4,
    })
    .row('Jobs and throughput')
    .timeseries({
      title: 'Jobs per state',
      description:
        'Is this queue keeping up? Jobs in each state over time: a rising waiting line means ' +
        'jobs arrive faster than they finish; a rising failed line, that they fail.',
      queries: [{ expr: `max by (state) (bullmq_job_count{${Q}})`, legend: '{{state}}' }],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Throughput',
      description:
        'How fast does the queue drain, and how much of it fails? Completed jobs, jobs that ' +
        'failed for good, and failed attempts that will be retried, per second (worker runners).',
      queries: [
        {
          expr: `sum(rate(oxmq_jobs_completed_total{${Q}}[$__rate_interval]))`,
          legend: 'completed',
        },
        {
          expr: orZeroFor(
            `sum(rate(oxmq_jobs_failed_total{${Q}, final="true"}[$__rate_interval]))`,
            SERVED,
          ),
          legend: 'failed',
        },
        {
          expr: orZeroFor(
            `sum(rate(oxmq_jobs_failed_total{${Q}, final="false"}[$__rate_interval]))`,
            SERVED,
          ),
          legend: 'failed, will retry',
        },
      ],
      unit: 'ops',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Completed and failed in the last minute (queue metrics)',
      description:
        'How many jobs finished in the last minute, by the queue’s own count? Jobs completed ' +
        'and failed in the last closed minute, from the metrics keys that every worker started ' +
        'with the metrics option writes (bullmq’s too). Flat at 0 when no worker records them.',
      queries: [
        { expr: `max(oxmq_queue_completed_last_minute{${Q}})`, legend: 'completed' },
        { expr: `max(oxmq_queue_failed_last_minute{${Q}})`, legend: 'failed' },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Restarts, stalls and lost locks',
      description:
        'Are jobs running more than once? Restarts (starts that are not a job’s first: after a ' +
        'failure, a stall, a rate-limit give-back or a wait for children), jobs found stalled ' +
        '(their worker stopped renewing the lock), and lock renewals that failed (each a job ' +
        'another worker may run again), per minute.',
      queries: [
        { expr: perMinute('oxmq_jobs_retried_total'), legend: 'restarts' },
        { expr: perMinute('oxmq_jobs_stalled_total'), legend: 'stalled' },
        { expr: perMinute('oxmq_lock_renewal_failures_total'), legend: 'lock renewal failures' },
      ],
      unit: 'opm',
      w: 12,
      h: 8,
    })
    .row('Latency')
    .timeseries({
      title: 'Processing duration',
      description:
        'How long do jobs take to run? Percentiles of the time from the processor’s start to ' +
        'its result, per attempt.',
      queries: PROCESSING,
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Wait time',
      description:
        'How long do jobs wait? Percentiles of the time from when a job became due to the ' +
        'start of its attempt. Only started jobs count: see "Oldest waiting job" for the rest.',
      queries: WAIT,
      unit: 's',
      w: 12,
      h: 8,
    })
    .row('Capacity')
    .timeseries({
      title: 'In flight vs concurrency',
      description:
        'Are the workers saturated? Jobs the worker runners run now for this queue against ' +
        'their slots (the sum of their concurrency). In flight at the slot line while jobs ' +
        'wait: add workers or concurrency.',
      queries: [
        { expr: `sum(oxmq_worker_jobs_in_flight{${Q}})`, legend: 'in flight' },
        { expr: `sum(oxmq_worker_concurrency{${Q}})`, legend: 'slots' },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Global concurrency use',
      description:
        'Is the queue’s global concurrency the limit? Active jobs against the limit set on the ' +
        'queue. No limit line: the queue sets none.',
      queries: [
        { expr: jobs('active'), legend: 'active' },
        {
          expr: `max(oxmq_queue_global_concurrency_limit{${Q}})`,
          legend: 'global limit',
          emptyWhen: 'the queue sets no global concurrency',
        },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Rate limit',
      description:
        'Is the rate limiter holding jobs back? How long it still delays the queue; above 0 ' +
        'often means the limit, not the workers, sets the throughput.',
      queries: [{ expr: `max(oxmq_queue_rate_limit_ttl_seconds{${Q}})`, legend: 'limited for' }],
      unit: 's',
      w: 12,
      h: 8,
    })
    .timeseries({
      title: 'Workers connected',
      description:
        'Who serves this queue? Workers connected to it (OxMQ and bullmq alike), and the OxMQ ' +
        'worker runner processes among them.',
      queries: [
        { expr: `max(oxmq_queue_workers{${Q}})`, legend: 'workers' },
        { expr: `count(oxmq_worker_concurrency{${Q}} > 0) or vector(0)`, legend: 'runners' },
      ],
      unit: 'short',
      w: 12,
      h: 8,
    })
    .build();
}
