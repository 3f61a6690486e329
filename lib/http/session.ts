/** The signed-in session as the pages read it, and the links to the tools around the console. */
import { z } from 'zod';

/** Links lib/links.ts builds; null when not set. */
export const consoleLinksSchema = z.strictObject({
  /** OXMQ_TRACE_URL: a trace viewer URL with `{traceId}` where the id goes. */
  traceUrl: z.string().nullable(),
  /** OXMQ_GRAFANA_URL: the base URL of a Grafana holding OxMQ's dashboards. */
  grafanaUrl: z.string().nullable(),
});
export type ConsoleLinks = z.infer<typeof consoleLinksSchema>;

export const healthResponseSchema = z.strictObject({ status: z.enum(['ok', 'unavailable']) });
export type HealthResponse = z.infer<typeof healthResponseSchema>;

/** POST /api/users/:username/sign-out: every session of the user ended. */
export interface SignOutEverywhereResponse {
  ok: true;
}
