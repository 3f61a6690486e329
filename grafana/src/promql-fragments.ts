/**
 * PromQL pieces several dashboards share.
 *
 * The console's gauges (bullmq_job_count, oxmq_queue_*) describe Redis, not the process that
 * serves them: with several console replicas scraped, each queue arrives once per replica. They
 * are therefore always read through `max by (prefix, queue, ...)`, never summed across
 * instances. The runner's counters and gauges are per process and are summed.
 */

/** `{a, b}` from matchers, or '' when there are none. */
export function selector(...matchers: string[]): string {
  const present = matchers.filter(Boolean);
  return present.length > 0 ? `{${present.join(', ')}}` : '';
}

/** Waiting plus prioritized jobs (what workers will pick next) per queue. */
export function backlogByQueue(matchers = ''): string {
  const jobs = selector(matchers, 'state=~"waiting|prioritized"');
  return `sum by (prefix, queue) (max by (prefix, queue, state) (bullmq_job_count${jobs}))`;
}

/**
 * Queues with a backlog and no worker connected: nothing will ever run those jobs. Empty when
 * every queue that has waiting jobs is served.
 */
export function unservedQueues(matchers = ''): string {
  const workers = `max by (prefix, queue) (oxmq_queue_workers${selector(matchers)}) > 0`;
  return `(${backlogByQueue(matchers)} > 0) unless on (prefix, queue) (${workers})`;
}

/**
 * A rate of rare events (failures, stalls, lost locks) that reads 0, not "no data", for every
 * series `servedBy` has: the runner creates an event counter only when the first event happens,
 * so without this a healthy queue would show an empty panel instead of a flat zero. Queues no
 * runner serves stay empty, which is the honest answer there.
 */
export function orZeroFor(expr: string, servedBy: string): string {
  return `(${expr}) or (0 * ${servedBy})`;
}

/** A quantile of a histogram's rate, grouped by `by` (plus `le`). */
export function quantile(
  q: number,
  histogram: string,
  matchers: string,
  by: string[],
  window = '$__rate_interval',
): string {
  const groups = [...by, 'le'].join(', ');
  return `histogram_quantile(${q}, sum by (${groups}) (rate(${histogram}_bucket${selector(matchers)}[${window}])))`;
}
