/**
 * POST …/jobs/:id/cancel { reason? }: asks the OxMQ worker running the job to cancel it, through
 * Redis (it acts on its next heartbeat). The answer says what the request could reach:
 * `requested`, `not-active`, or `held-by-bullmq` (no OxMQ heartbeat lists the job; bullmq has no
 * way to cancel a job from another process).
 */
import { z } from 'zod';
import type { JobCancelResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { jobParams, jobTarget, requireJobKey } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const POST = withRoute(
  {
    mutation: { action: 'job.cancel', target: jobTarget },
    params: jobParams,
    body: z.object({ reason: z.string().max(500).optional() }).strict(),
  },
  async ({ params, body }): Promise<JobCancelResponse> => {
    await requireJobKey(params);
    const outcome = await admin().workers.cancelJob(
      params.prefix,
      params.name,
      params.id,
      body.reason ?? '',
    );
    return { outcome };
  },
);
