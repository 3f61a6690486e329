// Unauthenticated on purpose (load balancers, orchestrators); it reveals only up or down.
import type { HealthResponse } from '@/lib/api-types';
import { pingRedis } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const up = await pingRedis();
  const body: HealthResponse = { status: up ? 'ok' : 'unavailable' };
  return Response.json(body, { status: up ? 200 : 503, headers: { 'Cache-Control': 'no-store' } });
}
