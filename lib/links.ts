/**
 * Links from the console to the tools around it, built from the validated settings
 * OXMQ_TRACE_URL and OXMQ_GRAFANA_URL (lib/server/env.ts accepts http(s) URLs only). Pure, so
 * the server (job and flow responses) and the browser (queue pages) build them alike.
 */

/** The dashboards grafana/ provisions, by uid and slug (a Grafana URL is /d/<uid>/<slug>). */
const GRAFANA_DASHBOARDS = {
  queue: { uid: 'oxmq-queue', slug: 'oxmq-queue' },
  overview: { uid: 'oxmq-overview', slug: 'oxmq-overview' },
} as const;

/** The trace viewer's page for a trace: every `{traceId}` of the template replaced. */
export function traceHref(
  template: string | null | undefined,
  traceId: string | null | undefined,
): string | null {
  if (!template || !traceId) return null;
  return template.split('{traceId}').join(encodeURIComponent(traceId));
}

function dashboardHref(base: string, dashboard: { uid: string; slug: string }): string {
  return `${base.replace(/\/+$/, '')}/d/${dashboard.uid}/${dashboard.slug}`;
}

/** The per-queue dashboard with its prefix and queue variables set. */
export function grafanaQueueHref(
  base: string | null | undefined,
  prefix: string,
  name: string,
): string | null {
  if (!base) return null;
  const query = `var-prefix=${encodeURIComponent(prefix)}&var-queue=${encodeURIComponent(name)}`;
  return `${dashboardHref(base, GRAFANA_DASHBOARDS.queue)}?${query}`;
}

export function grafanaOverviewHref(base: string | null | undefined): string | null {
  return base ? dashboardHref(base, GRAFANA_DASHBOARDS.overview) : null;
}
