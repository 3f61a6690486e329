/**
 * OxMQ's Prometheus alerting rules, written out by grafana/build.ts as
 * grafana/alerts/oxmq-alerts.yml (load it with `rule_files` in prometheus.yml). Each rule reads
 * only metrics docs/metrics.md lists (or Prometheus's own `up`), has a unit test in
 * grafana/alerts/oxmq-alerts.test.yml (a firing and a quiet case) and a section in
 * docs/alerts.md, which its `runbook_url` points to.
 *
 * The console's gauges describe every queue, and several console replicas may be scraped: the
 * queue rules take the max per queue so replicas do not add up (as the dashboards do). The
 * runner's counters are summed per queue over its processes.
 */

import * as prettier from 'prettier';

export interface AlertRule {
  alert: string;
  expr: string;
  /** How long the condition must hold before the alert fires (Prometheus duration). */
  for: string;
  severity: 'critical' | 'warning';
  summary: string;
  description: string;
  /** The section of docs/alerts.md about this alert. */
  anchor: string;
}

/** Scrape jobs as grafana/prometheus.example.yml names them. */
const CONSOLE_JOB = 'oxmq-console';
const RUNNER_JOB = 'oxmq-worker';

const perQueue = (expr: string) => `max by (prefix, queue) (${expr})`;

export const ALERT_RULES: readonly AlertRule[] = [
  {
    alert: 'OxmqQueueWithoutWorker',
    expr:
      '(sum by (prefix, queue) (max by (prefix, queue, state)' +
      ' (bullmq_job_count{state=~"waiting|prioritized"})) > 0)' +
      ` unless on (prefix, queue) (${perQueue('oxmq_queue_workers')} > 0)` +
      ` unless on (prefix, queue) (${perQueue('oxmq_queue_paused')} == 1)`,
    for: '5m',
    severity: 'critical',
    summary: 'Jobs wait in {{ $labels.prefix }}:{{ $labels.queue }} and no worker is connected',
    description:
      '{{ $value }} jobs are ready to run in {{ $labels.prefix }}:{{ $labels.queue }}, which is not paused, and no worker has been connected to it for 5 minutes: nothing will run them.',
    anchor: 'oxmqqueuewithoutworker',
  },
  {
    alert: 'OxmqOldestWaitingJobTooOld',
    expr:
      `${perQueue('oxmq_queue_oldest_waiting_age_seconds')} > 900` +
      ` unless on (prefix, queue) (${perQueue('oxmq_queue_paused')} == 1)`,
    for: '5m',
    severity: 'warning',
    summary:
      'The oldest waiting job of {{ $labels.prefix }}:{{ $labels.queue }} is over 15 minutes old',
    description:
      'The next job to run in {{ $labels.prefix }}:{{ $labels.queue }} was added {{ $value | humanizeDuration }} ago: the workers do not keep up, or something holds the queue back.',
    anchor: 'oxmqoldestwaitingjobtooold',
  },
  {
    alert: 'OxmqFailureRatioHigh',
    expr:
      '(sum by (prefix, queue) (rate(oxmq_jobs_failed_total{final="true"}[10m]))' +
      ' / (sum by (prefix, queue) (rate(oxmq_jobs_completed_total[10m]))' +
      ' + sum by (prefix, queue) (rate(oxmq_jobs_failed_total{final="true"}[10m])))) > 0.1' +
      // At least one finished job a minute: a single failure on a quiet queue is no ratio.
      ' and on (prefix, queue) (sum by (prefix, queue) (rate(oxmq_jobs_completed_total[10m]))' +
      ' + sum by (prefix, queue) (rate(oxmq_jobs_failed_total{final="true"}[10m]))) > 1/60',
    for: '10m',
    severity: 'warning',
    summary: 'Over 10% of the jobs of {{ $labels.prefix }}:{{ $labels.queue }} fail for good',
    description:
      '{{ $value | humanizePercentage }} of the jobs that finished in {{ $labels.prefix }}:{{ $labels.queue }} over the last 10 minutes failed after their last attempt.',
    anchor: 'oxmqfailureratiohigh',
  },
  {
    alert: 'OxmqJobsStalling',
    expr: 'sum by (prefix, queue) (increase(oxmq_jobs_stalled_total[15m])) >= 3',
    for: '0m',
    severity: 'warning',
    summary: 'Jobs of {{ $labels.prefix }}:{{ $labels.queue }} stall again and again',
    description:
      'At least 3 jobs of {{ $labels.prefix }}:{{ $labels.queue }} were found without a live lock in 15 minutes: workers die while running them, or block their event loop past the lock duration.',
    anchor: 'oxmqjobsstalling',
  },
  {
    alert: 'OxmqLockRenewalFailing',
    expr: 'sum by (prefix, queue) (increase(oxmq_lock_renewal_failures_total[10m])) > 0',
    for: '0m',
    severity: 'warning',
    summary: 'Workers of {{ $labels.prefix }}:{{ $labels.queue }} fail to renew job locks',
    description:
      'Job locks of {{ $labels.prefix }}:{{ $labels.queue }} could not be renewed in the last 10 minutes: each such job may be run a second time by another worker.',
    anchor: 'oxmqlockrenewalfailing',
  },
  {
    alert: 'OxmqConsoleTargetDown',
    expr: `up{job="${CONSOLE_JOB}"} == 0`,
    for: '2m',
    severity: 'critical',
    summary: 'Prometheus cannot scrape the OxMQ console {{ $labels.instance }}',
    description:
      'The console at {{ $labels.instance }} has not answered /api/prometheus for 2 minutes: queue gauges are missing, so the queue alerts cannot fire either.',
    anchor: 'oxmqconsoletargetdown',
  },
  {
    alert: 'OxmqRunnerTargetDown',
    expr: `up{job="${RUNNER_JOB}"} == 0`,
    for: '2m',
    severity: 'critical',
    summary: 'Prometheus cannot scrape the OxMQ worker runner {{ $labels.instance }}',
    description:
      'The runner at {{ $labels.instance }} has not answered /metrics for 2 minutes: the process is down, or its health port is not reachable from Prometheus.',
    anchor: 'oxmqrunnertargetdown',
  },
  {
    alert: 'OxmqRunnerEventLoopLag',
    expr: 'max by (instance) (oxmq_event_loop_lag_seconds) > 0.5',
    for: '5m',
    severity: 'warning',
    summary: 'The event loop of runner {{ $labels.instance }} lags',
    description:
      'The 99th percentile of the event-loop delay of {{ $labels.instance }} has been {{ $value | humanizeDuration }} or more for 5 minutes: a processor blocks the loop, and lock renewals and heartbeats come late.',
    anchor: 'oxmqrunnereventlooplag',
  },
];

const quoted = (text: string) => JSON.stringify(text);

/**
 * The rules file as grafana/build.ts writes it to `file`: YAML (JSON-quoted strings are valid
 * YAML double-quoted scalars) formatted by the repository's Prettier settings, so the committed
 * file passes `prettier --check`.
 */
export async function renderAlertRules(file: string): Promise<string> {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(alertRulesYaml(), { ...options, filepath: file, parser: 'yaml' });
}

function alertRulesYaml(): string {
  const lines = [
    '# OxMQ alerting rules: written by grafana/build.ts from grafana/src/alerts.ts (edit there).',
    '# Load with `rule_files` in prometheus.yml; docs/alerts.md explains each alert.',
    'groups:',
    '  - name: oxmq',
    '    rules:',
  ];
  for (const rule of ALERT_RULES) {
    lines.push(
      `      - alert: ${rule.alert}`,
      `        expr: ${quoted(rule.expr)}`,
      `        for: ${rule.for}`,
      '        labels:',
      `          severity: ${rule.severity}`,
      '        annotations:',
      `          summary: ${quoted(rule.summary)}`,
      `          description: ${quoted(rule.description)}`,
      `          runbook_url: ${quoted(`docs/alerts.md#${rule.anchor}`)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
