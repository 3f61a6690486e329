import { z } from 'zod';
import { jobActionRoute } from '@/lib/server/job-action-route';
import { jobNotFound } from '@/lib/server/job-route';
import { admin } from '@/lib/server/oxmq';
import { restoreRedacted } from 'oxmq/admin';
import { redactionRules } from '@/lib/server/redact';

export const dynamic = 'force-dynamic';

/** Admin only: replaces the job's data. Values still shown as redacted keep their stored value. */
export const POST = jobActionRoute({
  action: 'data',
  body: z.object({ data: z.json() }).strict(),
  toAction: async (body, params) => {
    const stored = await admin().jobs.storedData(params.prefix, params.name, params.id);
    if (!stored) throw jobNotFound(params.id);
    return { kind: 'data', data: restoreRedacted(body.data, stored.data, redactionRules()) };
  },
});
