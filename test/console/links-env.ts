/**
 * The link settings of the suite's shared console (test/setup/console.ts), so that API tests
 * and the browser e2e can check the links it builds from them.
 */
export const LINKS_ENV = {
  OXMQ_TRACE_URL: 'https://tempo.example/explore?orgId=1&traceId={traceId}',
  OXMQ_GRAFANA_URL: 'https://grafana.example/sub/',
} as const;

/** What lib/links.ts should make of LINKS_ENV. */
export const traceUrlFor = (traceId: string) =>
  `https://tempo.example/explore?orgId=1&traceId=${traceId}`;
export const GRAFANA_BASE = 'https://grafana.example/sub';
