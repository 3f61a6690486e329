/** The console's link settings, for responses and the layout (lib/links.ts builds the links). */
import 'server-only';
import { traceHref } from '../links';
import type { ConsoleLinks } from '../api-types';
import { getEnv } from './env';

export function consoleLinks(): ConsoleLinks {
  const env = getEnv();
  return { traceUrl: env.OXMQ_TRACE_URL ?? null, grafanaUrl: env.OXMQ_GRAFANA_URL ?? null };
}

/** The trace viewer's link for a trace id; null without OXMQ_TRACE_URL or without an id. */
export function traceUrlOf(traceId: string | null | undefined): string | null {
  return traceHref(getEnv().OXMQ_TRACE_URL, traceId);
}

/** Flow graph nodes as the API answers them: each with its trace link when it has one. */
export function withTraceUrls<T extends { traceId?: string }>(
  nodes: T[],
): (T & { traceUrl?: string })[] {
  return nodes.map((node) => {
    const traceUrl = traceUrlOf(node.traceId);
    return traceUrl === null ? node : { ...node, traceUrl };
  });
}
