/**
 * GET /api/prometheus: every queue's state in Prometheus' text format (docs/metrics.md,
 * "Console"). Prometheus has no session cookie, so proxy.ts lets exactly this path through and
 * the bearer token OXMQ_METRICS_TOKEN guards it here; without the setting the route does not
 * exist (404), so it is never open by default.
 */
import type { NextRequest } from 'next/server';
import { ApiProblem, errorResponse } from '@/lib/server/api-error';
import { getEnv } from '@/lib/server/env';
import {
  isAuthorizedScrape,
  PROMETHEUS_CONTENT_TYPE,
  prometheusText,
} from '@/lib/server/prometheus';

export const dynamic = 'force-dynamic';

export async function GET(request: NextRequest): Promise<Response> {
  try {
    const token = getEnv().OXMQ_METRICS_TOKEN;
    if (token === undefined) {
      return errorResponse(new ApiProblem(404, 'NOT_FOUND', 'Set OXMQ_METRICS_TOKEN to scrape'));
    }
    if (!isAuthorizedScrape(request.headers.get('authorization'), token)) {
      const response = errorResponse(
        new ApiProblem(401, 'UNAUTHENTICATED', 'Send Authorization: Bearer <OXMQ_METRICS_TOKEN>'),
      );
      response.headers.set('WWW-Authenticate', 'Bearer realm="oxmq"');
      return response;
    }
    return new Response(await prometheusText(), {
      headers: { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' },
    });
  } catch (error) {
    console.error('OxMQ console: metrics scrape failed:', error);
    return errorResponse(
      new ApiProblem(500, 'INTERNAL', 'Internal error; the server log has details'),
    );
  }
}
