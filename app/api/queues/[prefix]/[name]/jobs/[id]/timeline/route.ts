import { z } from 'zod';
import type { JobTimelineResponse } from '@/lib/api-types';
import { withRoute } from '@/lib/server/api';
import { jobNotFound, jobParams, requireJobKey } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';

export const dynamic = 'force-dynamic';

// The engine clamps these to JOB_TIMELINE_LIMITS as well; a bigger ask is clamped, not refused.
const timelineQuery = z.object({
  maxScan: z.coerce.number().int().min(1).optional(),
  maxEntries: z.coerce.number().int().min(1).optional(),
});

export const GET = withRoute(
  // A timeline may scan a long events stream: a per-user budget (route-rate-limit.ts).
  { role: 'viewer', params: jobParams, query: timelineQuery, budget: 'timeline' },
  async ({ params, query }): Promise<JobTimelineResponse> => {
    await requireJobKey(params);
    const job = await admin().jobs.detail(params.prefix, params.name, params.id);
    if (!job) throw jobNotFound(params.id);
    // Failure reasons on the timeline come back redacted, like the job's own (engine/admin/create-admin.ts).
    return admin().jobs.timeline({
      prefix: params.prefix,
      queueName: params.name,
      jobId: params.id,
      createdAt: job.timestamp,
      maxScan: query.maxScan,
      maxEntries: query.maxEntries,
    });
  },
);
