/**
 * POST …/jobs/:id/cancel { reason?, force? }: cancels a running job through Redis. The OxMQ worker
 * holding it is woken at once and ends the attempt as cancelled (failed with the reason, not
 * retried) when its processor gives up; `force` kills the sandbox child of a processor that
 * ignores its signal, and is refused (409) when the holding worker runs its processor in its own
 * process. The answer says what the request could reach: `requested`, `not-active`, or
 * `held-by-bullmq` (no live OxMQ worker holds the job; bullmq has no way to cancel a job from
 * another process).
 *
 * GET …/jobs/:id/cancel: where a request for the running attempt stands (the job page).
 */
import { z } from 'zod';
import type { JobCancelResponse, JobCancelStateResponse } from '@/lib/api-types';
import { ApiProblem } from '@/lib/server/api-error';
import { withRoute } from '@/lib/server/api';
import { jobNotFound, jobParams, jobTarget, requireJobKey } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

export const GET = withRoute(
  { role: 'viewer', params: jobParams },
  async ({ params }): Promise<JobCancelStateResponse> => {
    await requireJobKey(params);
    const state = await admin().workers.cancelState(params.prefix, params.name, params.id);
    if (!state) throw jobNotFound(params.id);
    const { request } = state;
    return {
      request: request && {
        reason: request.reason,
        ageMs: Math.max(0, Date.now() - request.at),
        forced: request.forceAt !== null,
      },
      canForce: state.canForce,
      graceMs: state.graceMs,
    };
  },
);

export const POST = withRoute(
  {
    mutation: { action: 'job.cancel', target: jobTarget },
    params: jobParams,
    body: z
      .object({ reason: z.string().max(500).optional(), force: z.boolean().optional() })
      .strict(),
  },
  async ({ params, body }): Promise<JobCancelResponse> => {
    await requireJobKey(params);
    if (body.force) {
      const state = await admin().workers.cancelState(params.prefix, params.name, params.id);
      if (!state) throw jobNotFound(params.id);
      if (!state.canForce) {
        throw new ApiProblem(
          409,
          'CONFLICT',
          "A force stop needs a sandboxed processor: this job's processor runs inside its worker's process, which cannot stop it from outside.",
        );
      }
    }
    const outcome = await admin().workers.cancelJob(
      params.prefix,
      params.name,
      params.id,
      body.reason ?? '',
      { force: body.force === true },
    );
    return { outcome };
  },
);
